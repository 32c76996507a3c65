import HailCore

/// Coarse advice without a map: the great-circle distance times a detour factor, at an average speed.
///
/// The defaults (detour 1.3, 25 km/h) are typical of dense city driving; it never fails for valid points.
public struct StraightLineRouteProvider: RouteProvider {
    /// `straight-line`.
    public let name = "straight-line"
    /// How much longer than the straight line a real drive is assumed to be.
    public let detourFactor: Double
    /// The average speed assumed, in km/h.
    public let speedKmh: Double

    /// Creates a provider with a detour factor and an average speed.
    public init(detourFactor: Double = 1.3, speedKmh: Double = 25) {
        self.detourFactor = detourFactor
        self.speedKmh = speedKmh
    }

    /// The straight line stretched by the detour factor, at the average speed.
    public func advise(from start: Coordinate, to end: Coordinate) -> RouteAdvice? {
        guard start.validationProblem == nil, end.validationProblem == nil, speedKmh > 0 else { return nil }
        let distance = start.distance(to: end) * detourFactor
        return RouteAdvice(
            distance: distance, duration: distance / (speedKmh / 3.6), coordinates: [start, end], provider: name)
    }
}
