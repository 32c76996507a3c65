import Foundation

/// One frame whose words claimed more than its pin's true age allowed, with what the audit knew of it, so a rare
/// overclaim can be traced from the report alone.
public struct OverclaimedFrame: Sendable, Hashable, Codable {
    /// The rule broken: "live", "updating", "noDelayedBanner" or "etaWhileLocating".
    public var rule: String
    /// The trip on screen.
    public var tripID: String
    /// The driver whose pin it was.
    public var driverID: String
    /// When the frame was drawn (seconds since 1970).
    public var at: Double
    /// The trip state on screen.
    public var state: String
    /// The batch the pin's fix came in.
    public var seq: Int64
    /// The age the words were held to: since the car was last where the pin is, or since the phone took the
    /// pin's fix, whichever is later.
    public var ageSeconds: Double
    /// Since the car was last where the pin is.
    public var truthAgeSeconds: Double
    /// Since the phone took the pin's fix, nil when no fix of that batch lies where the pin is.
    public var fixAgeSeconds: Double?
    /// Since the server received the pin's fix.
    public var receivedAgeSeconds: Double
    /// The rider's app's estimate of the server's clock minus its own: the simulated clocks are one, so this is the
    /// estimate's error (a negative one makes every age it reckons look younger).
    public var clockOffsetSeconds: Double?
}
