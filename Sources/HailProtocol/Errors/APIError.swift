/// An error as the API reports it: `{"error": {"code": "invalid_field", "message": "...", "field": "pickup.lat"}}`.
///
/// The code is machine-readable and stable; the message is for the developer reading logs; `field`
/// is the dotted path of the offending input (`pickup.lat`, `points[3].accuracy`) when there is one;
/// `activeTripID` names the trip a rider or driver already has when a 409 refuses them a second one. A 409 from a
/// trip safety rule keeps the code `invalid_state` (older apps treat it as the refusal it is) and names the rule in
/// `reason` (`Reason`), with its numbers: `distanceMeters`, `attemptsLeft`, `retryAfterSeconds`.
public struct APIError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// What kind of error this is; decides the HTTP status.
    public var code: Code
    /// A sentence a developer can act on.
    public var message: String
    /// The path of the input at fault, such as `pickup.lat`, or nil when no single field is.
    public var field: String?
    /// The active trip that stands in the way of another (a second trip request, or a busy driver's accept).
    public var activeTripID: String?
    /// Which trip safety rule refused a 409, such as `wrong_pickup_pin`; nil for the others.
    public var reason: Reason?
    /// With `too_far_from_pickup`: how far the driver's fresh fix is from the pickup, whole metres.
    public var distanceMeters: Int?
    /// With `wrong_pickup_pin`: how many more wrong PINs lock starting (0: this one did).
    public var attemptsLeft: Int?
    /// With `pickup_pin_locked` (and the `wrong_pickup_pin` that locked): seconds until starting is allowed again.
    public var retryAfterSeconds: Int?

    /// Creates an error.
    public init(
        code: Code, message: String, field: String? = nil, activeTripID: String? = nil, reason: Reason? = nil,
        distanceMeters: Int? = nil, attemptsLeft: Int? = nil, retryAfterSeconds: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.field = field
        self.activeTripID = activeTripID
        self.reason = reason
        self.distanceMeters = distanceMeters
        self.attemptsLeft = attemptsLeft
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// The HTTP status that carries this error.
    public var httpStatus: Int { code.httpStatus }

    /// `invalid_field: lat must be between -90 and 90 (pickup.lat)`, for logs.
    public var description: String {
        if let field { return "\(code.rawValue): \(message) (\(field))" }
        return "\(code.rawValue): \(message)"
    }

    private enum CodingKeys: String, CodingKey {
        case code, message, field, activeTripID, reason, distanceMeters, attemptsLeft, retryAfterSeconds
    }

    /// Reads the inner object of an error body.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(Code.self, forKey: .code)
        message = try container.decode(String.self, forKey: .message)
        field = try container.decodeIfPresent(String.self, forKey: .field)
        activeTripID = try container.decodeIfPresent(String.self, forKey: .activeTripID)
        reason = try container.decodeIfPresent(Reason.self, forKey: .reason)
        distanceMeters = try container.decodeIfPresent(Int.self, forKey: .distanceMeters)
        attemptsLeft = try container.decodeIfPresent(Int.self, forKey: .attemptsLeft)
        retryAfterSeconds = try container.decodeIfPresent(Int.self, forKey: .retryAfterSeconds)
    }

    /// Writes the inner object of an error body, leaving out the optional members that are nil.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(message, forKey: .message)
        try container.encodeIfPresent(field, forKey: .field)
        try container.encodeIfPresent(activeTripID, forKey: .activeTripID)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encodeIfPresent(distanceMeters, forKey: .distanceMeters)
        try container.encodeIfPresent(attemptsLeft, forKey: .attemptsLeft)
        try container.encodeIfPresent(retryAfterSeconds, forKey: .retryAfterSeconds)
    }
}

extension APIError {
    /// A machine-readable error code. A struct rather than an enum so that a client built today
    /// still decodes a code a newer server adds.
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The code as it appears on the wire, in snake_case.
        public let rawValue: String

        /// Wraps any code string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// 400: the body is not JSON at all.
        public static let invalidJSON = Code(rawValue: "invalid_json")
        /// 400: a non-JSON body (the binary location batch) cannot be read.
        public static let invalidBody = Code(rawValue: "invalid_body")
        /// 400: a field has the wrong type or an unacceptable value.
        public static let invalidField = Code(rawValue: "invalid_field")
        /// 400: a required field or header is absent.
        public static let missingField = Code(rawValue: "missing_field")
        /// 401: no token, or a token that is bad or expired.
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// 403: the token is good but the thing is not theirs.
        public static let forbidden = Code(rawValue: "forbidden")
        /// 404: no such route, trip or share link.
        public static let notFound = Code(rawValue: "not_found")
        /// 405: the path exists but not with this method.
        public static let methodNotAllowed = Code(rawValue: "method_not_allowed")
        /// 409: the action is not allowed in the trip's current state.
        public static let invalidState = Code(rawValue: "invalid_state")
        /// 413: the body is larger than the route accepts.
        public static let payloadTooLarge = Code(rawValue: "payload_too_large")
        /// 426: a WebSocket route asked with a plain request; the `Upgrade` header names the protocol to ask with.
        public static let upgradeRequired = Code(rawValue: "upgrade_required")
        /// 422: the idempotency key was already used with a different body.
        public static let idempotencyKeyReused = Code(rawValue: "idempotency_key_reused")
        /// 429: too many requests; see `Retry-After`.
        public static let rateLimited = Code(rawValue: "rate_limited")
        /// 500: the server failed; the request may be retried with the same idempotency key.
        public static let `internal` = Code(rawValue: "internal")
        /// 501: the request's method is not a standard HTTP method, so no route takes it (a standard one that the
        /// path does not take is 405).
        public static let notImplemented = Code(rawValue: "not_implemented")
        /// 503: the server is starting or draining; retry after a moment.
        public static let unavailable = Code(rawValue: "unavailable")

        /// Every code this version knows, in status order.
        public static let known: [Code] = [
            .invalidJSON, .invalidBody, .invalidField, .missingField, .unauthorized, .forbidden, .notFound,
            .methodNotAllowed,
            .invalidState, .payloadTooLarge, .idempotencyKeyReused, .upgradeRequired, .rateLimited, .internal,
            .notImplemented,
            .unavailable,
        ]

        /// The HTTP status for this code; a code this version does not know maps to 500.
        public var httpStatus: Int {
            switch rawValue {
            case "invalid_json", "invalid_body", "invalid_field", "missing_field": return 400
            case "unauthorized": return 401
            case "forbidden": return 403
            case "not_found": return 404
            case "method_not_allowed": return 405
            case "invalid_state": return 409
            case "payload_too_large": return 413
            case "idempotency_key_reused": return 422
            case "upgrade_required": return 426
            case "rate_limited": return 429
            case "not_implemented": return 501
            case "unavailable": return 503
            default: return 500
            }
        }

        /// Reads a bare code string.
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        /// Writes the bare code string.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        /// The wire string.
        public var description: String { rawValue }
    }
}

extension APIError {
    /// A 400 for a field whose value is not acceptable.
    public static func invalidField(_ field: String, _ message: String) -> APIError {
        APIError(code: .invalidField, message: message, field: field)
    }

    /// A 400 for a required field or header that is absent.
    public static func missingField(_ field: String) -> APIError {
        APIError(code: .missingField, message: "\(field) is required", field: field)
    }

    /// A 404 naming what was not found.
    public static func notFound(_ message: String) -> APIError {
        APIError(code: .notFound, message: message)
    }

    /// A 409 for an action the trip's state does not allow.
    public static func invalidState(_ message: String) -> APIError {
        APIError(code: .invalidState, message: message)
    }

    /// A 409 for a second active trip: the rider or driver already has `tripID`, which the body names.
    public static func activeTrip(_ tripID: String, _ message: String) -> APIError {
        APIError(code: .invalidState, message: message, activeTripID: tripID)
    }

    /// A 500 whose message is safe to show (never the underlying error's text).
    public static func `internal`(_ message: String = "internal server error") -> APIError {
        APIError(code: .internal, message: message)
    }
}
