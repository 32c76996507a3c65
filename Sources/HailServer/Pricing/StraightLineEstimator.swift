import HailCore

/// A coarse road estimate from the straight line, used until road routing exists (and as the fallback
/// cohort after): roads are ~1.3 times the crow's flight, and town traffic averages ~30 km/h.
public struct StraightLineEstimator: Sendable, Hashable {
    /// Road distance over straight distance.
    public var detourFactor: Double
    /// Average speed in metres per second.
    public var speedMetersPerSecond: Double

    /// Creates an estimator.
    public init(detourFactor: Double = 1.3, speedMetersPerSecond: Double = 30 / 3.6) {
        self.detourFactor = detourFactor
        self.speedMetersPerSecond = speedMetersPerSecond
    }

    /// Estimated road distance in metres.
    public func distance(from: Coordinate, to: Coordinate) -> Double { from.distance(to: to) * detourFactor }

    /// Estimated driving time in whole seconds.
    public func seconds(from: Coordinate, to: Coordinate) -> Int {
        Int((distance(from: from, to: to) / speedMetersPerSecond).rounded())
    }
}
