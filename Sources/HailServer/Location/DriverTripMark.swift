/// Which trip a driver's shared state says they serve, as the store holds it: what a repair compares with the
/// trip store, and what it expects to find unchanged when it writes (`DriverIngestStore.repairTrip`).
public struct DriverTripMark: Sendable, Hashable {
    /// The trip last recorded for the driver; empty when the lookup found none.
    public var tripID: String
    /// That trip's version as recorded (0 with no trip).
    public var version: Int
    /// True when the trip is recorded as active, so the driver is taken to be serving it: no offers, their
    /// positions published to its riders and, once it is under way, kept in its history.
    public var active: Bool

    /// Creates a mark.
    public init(tripID: String, version: Int, active: Bool) {
        self.tripID = tripID
        self.version = version
        self.active = active
    }

    /// No trip recorded (the lookup found none).
    public static let none = DriverTripMark(tripID: "", version: 0, active: false)
}
