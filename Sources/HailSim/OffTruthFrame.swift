import Foundation

/// One frame whose drawn car lay more than 30 m from anywhere the car had been lately, with what the audit knew of
/// it, so it can be traced from the report alone.
public struct OffTruthFrame: Sendable, Hashable, Codable {
    /// The trip on screen.
    public var tripID: String
    /// The driver whose car it was.
    public var driverID: String
    /// When the frame was drawn (seconds since 1970).
    public var at: Double
    /// The trip state on screen.
    public var state: String
    /// Metres from the drawn car to the nearest point of the car's path since the last place the audit put it.
    public var metresFromPath: Double?
    /// Metres from the drawn car to the pin (the newest position the app holds): 0 when the car rests on it.
    public var metresFromPin: Double?
    /// Metres from the pin to the car's path in the same window: a pin off the path puts a resting car off it too.
    public var pinMetresFromPath: Double?
    /// The batch of the pin.
    public var seq: Int64?
    /// Seconds since the server received the pin.
    public var pinAgeSeconds: Double?
}
