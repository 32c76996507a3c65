/// Frames whose words about the driver's pin claimed more than the car's true position age allowed, by
/// the rule broken. Each rule has the sampling period (0.2 s) as its tolerance.
public struct ScreenOverclaims: Sendable, Hashable, Codable {
    /// The pin said live (animating, under 6 s) while the car's true position age was over 6 s.
    public var live = 0
    /// The pin said updating (under 20 s) while the true age was over 20 s.
    public var updating = 0
    /// No "Driver's location may be delayed" while the true age was over 15 s.
    public var noDelayedBanner = 0
    /// An ETA in minutes on screen while the true age was over 20 s (the pin should say locating).
    public var etaWhileLocating = 0

    /// Nothing counted yet.
    public init() {}

    /// All overclaims, whatever the rule.
    public var total: Int { live + updating + noDelayedBanner + etaWhileLocating }

    /// Adds `other`'s counts.
    mutating func merge(_ other: ScreenOverclaims) {
        live += other.live
        updating += other.updating
        noDelayedBanner += other.noDelayedBanner
        etaWhileLocating += other.etaWhileLocating
    }

    /// "live 0, updating 0, no banner 0, ETA 0".
    var summary: String {
        "live \(live), updating \(updating), no banner \(noDelayedBanner), ETA \(etaWhileLocating)"
    }
}
