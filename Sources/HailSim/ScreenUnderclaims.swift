/// Frames whose words about the driver's pin claimed less than the car's true position age allowed: not
/// a broken promise, but a rider told to worry for nothing. Each rule has the sampling period (0.2 s) as
/// its tolerance.
public struct ScreenUnderclaims: Sendable, Hashable, Codable {
    /// The pin said locating while the car's true position age was under 6 s.
    public var locating = 0
    /// The pin said updating while the true age was under 6 s.
    public var updating = 0
    /// "Driver's location may be delayed" while the true age was under 15 s.
    public var delayedBanner = 0

    /// Nothing counted yet.
    public init() {}

    /// All underclaims, whatever the rule.
    public var total: Int { locating + updating + delayedBanner }

    /// Adds `other`'s counts.
    mutating func merge(_ other: ScreenUnderclaims) {
        locating += other.locating
        updating += other.updating
        delayedBanner += other.delayedBanner
    }

    /// "locating 0, updating 0, banner 0".
    var summary: String { "locating \(locating), updating \(updating), banner \(delayedBanner)" }
}
