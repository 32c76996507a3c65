import Foundation

/// What the city does wrong on purpose on trips under way, so the server's trip alerts can be scored: with a seeded
/// draw per trip, a wrong turn kept for a set distance (the navigation not followed and not re-routed until the car
/// is that far off its route) or a stop of a set time away from the drop-off.
public struct SafetyInjection: Sendable, Hashable {
    /// The chance a trip under way gets a wrong turn.
    public var deviationProbability: Double
    /// The chance a trip under way gets a long stop instead (never both on one trip).
    public var stopProbability: Double
    /// How far from its reported route the car drives before its navigation re-routes it, metres.
    public var deviationMeters = 300.0
    /// How long the car stands, seconds (over the server's 3 minutes).
    public var stopSeconds = 220.0
    /// Seconds after the start the car drives as planned before what is injected begins, drawn in this range.
    public var afterSeconds: ClosedRange<Double> = 8...25

    /// An injection of each kind on a `share` of trips each (0...0.5).
    public init(share: Double) {
        deviationProbability = min(max(share, 0), 0.5)
        stopProbability = min(max(share, 0), 0.5)
    }
}
