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
    /// With `ended`: the fixes of the trip the server had not acknowledged at the tap, oldest first. They travel
    /// with "ended" so the fare is priced on them whatever became of their batches; fixed at the tap, so every
    /// retry sends the same body under the same key.
    public var path: [LocationPoint]?
    /// With `started`: the rider's pickup PIN as the driver entered it, when the trip requires one.
    public var pin: String?

    /// Creates an intent.
    public init(_ kind: Kind, tripID: String, path: [LocationPoint]? = nil, pin: String? = nil) {
        self.kind = kind
        self.tripID = tripID
        self.path = path
        self.pin = pin
    }
}
