import HailCore

/// The body of `POST /v1/trips/{id}/events`: `{"event": "arrived", "idempotencyKey": "<uuid>"}`.
public struct TripEventRequest: Codable, Sendable, Hashable, Validatable {
    /// What the driver reports.
    public var event: TripEventKind
    /// The UUID of this one intent, reused on every retry of it.
    public var idempotencyKey: String
    /// With `ended` only: the fixes taken on the trip that the server had not acknowledged when the driver tapped,
    /// oldest first. The server adds them to the trip's path before pricing it, so fixes still on the phone (a dead
    /// zone at the drop-off, a stalled socket) are charged; those it already holds are ignored by their time.
    public var path: [LocationPoint]?
    /// With `started` only: the rider's 4-digit pickup PIN as the driver entered it, for a trip that requires one.
    public var pin: String?

    /// Creates an event report.
    public init(event: TripEventKind, idempotencyKey: String, path: [LocationPoint]? = nil, pin: String? = nil) {
        self.event = event
        self.idempotencyKey = idempotencyKey
        self.path = path
        self.pin = pin
    }

    /// The key must be a UUID; a path goes only with `ended`, holds at most `ProtocolLimits.maxPointsPerBatch`
    /// fixes, and each is checked as a location batch's are (fields named like `path[3].t`); a PIN goes only with
    /// `started` and is 4 digits.
    public func validate() throws(APIError) {
        try FieldCheck.uuid(idempotencyKey, at: "idempotencyKey")
        if let pin {
            guard event == .started else { throw APIError.invalidField("pin", "pin goes only with the started event") }
            guard PickupPIN.isWellFormed(pin) else { throw APIError.invalidField("pin", "pin must be 4 digits") }
        }
        guard let path else { return }
        guard event == .ended else {
            throw APIError.invalidField("path", "path goes only with the ended event")
        }
        guard path.count <= ProtocolLimits.maxPointsPerBatch else {
            throw APIError.invalidField(
                "path", "path must hold at most \(ProtocolLimits.maxPointsPerBatch) fixes")
        }
        for (index, point) in path.enumerated() {
            try point.validate(at: FieldPath.index("path", index))
        }
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
