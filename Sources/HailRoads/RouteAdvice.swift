import HailCore

/// A route provider's answer: advice for ETAs and drawing, which trip logic may ignore and never stores
/// as trip state.
public struct RouteAdvice: Sendable, Hashable {
    /// The estimated driving distance in metres.
    public var distance: Double
    /// The estimated driving time in seconds.
    public var duration: Double
    /// The path to draw, start to end (two points for a straight-line estimate).
    public var coordinates: [Coordinate]
    /// The name of the provider that gave it, for metrics and cohort comparisons.
    public var provider: String

    /// Creates advice.
    public init(distance: Double, duration: Double, coordinates: [Coordinate], provider: String) {
        self.distance = distance
        self.duration = duration
        self.coordinates = coordinates
        self.provider = provider
    }
}
