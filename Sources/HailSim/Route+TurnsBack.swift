import HailCore
import HailRoads

extension Route {
    /// The speed a car comes down to where it turns back, metres per second.
    static let turningBackSpeed = 2.0
    /// How hard a car brakes for a turn back and speeds up after it, metres per second squared.
    static let turningBackAcceleration = 2.0
    /// How sharp a turn must be to be a turn back (a U-turn at a node), degrees.
    static let turnBackDegrees = 150.0

    /// This route timed for a car that slows for each turn back, to `turningBackSpeed` at the turn.
    ///
    /// The router's times keep each road's speed up to the node a car turns back at, so a simulated car reversed at
    /// 10-14 m/s, and its phone's fixes, a second apart, missed the tip of a 20 m out and back: the fare then charged
    /// none of it (41 m of a 1,431 m Monaco trip, -2.7 %, issue 14). A car brakes to walking pace to turn round.
    /// Each segment into or out of a turn back is driven at the mean speed of that braking (and speeding up), so no
    /// point is added and the segments stay those of the roads.
    func slowingForTurnsBack() -> Route {
        guard coordinates.count > 2, times.count == coordinates.count else { return self }
        var durations = (1..<coordinates.count).map { times[$0] - times[$0 - 1] }
        for vertex in 1..<(coordinates.count - 1) {
            let before = coordinates[vertex - 1]
            let at = coordinates[vertex]
            let after = coordinates[vertex + 1]
            guard before.distance(to: at) > 0.5, at.distance(to: after) > 0.5 else { continue }
            let turn = Heading.shortestTurn(from: before.bearing(to: at), to: at.bearing(to: after))
            guard abs(turn) >= Self.turnBackDegrees else { continue }
            for segment in [vertex - 1, vertex] where durations[segment] > 0 {
                let length = coordinates[segment].distance(to: coordinates[segment + 1])
                let slowed = Self.seconds(over: length, cruising: length / durations[segment])
                durations[segment] = max(durations[segment], slowed)
            }
        }
        var retimed = [0.0]
        for duration in durations { retimed.append(retimed[retimed.count - 1] + duration) }
        return Route(
            distance: distance, duration: retimed[retimed.count - 1], coordinates: coordinates, edges: edges,
            times: retimed)
    }

    /// Seconds to drive `length` metres from (or to) a turn back, at `cruising` speed where braking allows it.
    static func seconds(over length: Double, cruising: Double) -> Double {
        let slowest = turningBackSpeed
        let acceleration = turningBackAcceleration
        guard cruising > slowest else { return length / max(cruising, .ulpOfOne) }
        // Within `braking` metres of the turn the speed is at most sqrt(slowest² + 2 a d).
        let braking = (cruising * cruising - slowest * slowest) / (2 * acceleration)
        let within = min(length, braking)
        let slowPart = ((slowest * slowest + 2 * acceleration * within).squareRoot() - slowest) / acceleration
        return slowPart + (length - within) / cruising
    }
}
