/// A trip action the driver has tapped and the server must confirm: what the outbox carries.
public struct DriverIntent: Codable, Sendable, Hashable {
    /// Which action, matching the driver API: accept, or an event on `/v1/trips/{id}/events`, or cancel.
    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        /// `POST /v1/trips/{id}/accept`.
        case accept
        /// The `arrived` event: the driver is at the pickup.
        case arrived
        /// The `started` event: the rider is on board.
        case started
        /// The `ended` event: the rider is at the dropoff.
        case ended
        /// The driver gives the trip up.
        case cancel
    }

    /// Which action.
    public var kind: Kind
    /// The trip it applies to.
    public var tripID: String

    /// Creates an intent.
    public init(_ kind: Kind, tripID: String) {
        self.kind = kind
        self.tripID = tripID
    }
}
