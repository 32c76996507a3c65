/// The body of `POST /v1/trips/{id}/events`: `{"event": "arrived", "idempotencyKey": "<uuid>"}`.
public struct TripEventRequest: Codable, Sendable, Hashable, Validatable {
    /// What the driver reports.
    public var event: TripEventKind
    /// The UUID of this one intent, reused on every retry of it.
    public var idempotencyKey: String

    /// Creates an event report.
    public init(event: TripEventKind, idempotencyKey: String) {
        self.event = event
        self.idempotencyKey = idempotencyKey
    }

    /// The key must be a UUID.
    public func validate() throws(APIError) {
        try FieldCheck.uuid(idempotencyKey, at: "idempotencyKey")
    }
}

/// A driver's report about the trip they are on.
public enum TripEventKind: String, Codable, Sendable, Hashable, CaseIterable {
    /// At the pickup: driverAssigned -> driverArrived.
    case arrived
    /// The rider is in the car: driverArrived -> onTrip.
    case started
    /// At the dropoff: onTrip -> completed.
    case ended

    /// Reads the event, naming the accepted values when the string is none of them.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let kind = TripEventKind(rawValue: text) else {
            let accepted = Self.allCases.map(\.rawValue).joined(separator: ", ")
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected one of \(accepted), got \"\(text.prefix(40))\"")
        }
        self = kind
    }
}
