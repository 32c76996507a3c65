/// The coarse ETA a rider's app shows when its cohort's `etaSource` is `straightLine`: the great-circle
/// distance from the car to the target, stretched by a detour factor, at a town's average speed.
///
/// The same numbers as the server's straight-line route provider, so a rider switched off the road ETA sees
/// what an estimate without a map would have said. Pure: the app feeds it the car's newest position.
public enum StraightLineETA {
    /// How much longer than the straight line a real drive is assumed to be.
    public static let detourFactor = 1.3
    /// The average speed assumed, km/h.
    public static let speedKmh = 30.0

    /// Whole seconds from `car` to `target`, rounded; nil when either is not a place on Earth.
    public static func seconds(from car: Coordinate, to target: Coordinate) -> Int? {
        guard car.validationProblem == nil, target.validationProblem == nil else { return nil }
        let metres = car.distance(to: target) * detourFactor
        return Int((metres / (speedKmh / 3.6)).rounded())
    }
}
