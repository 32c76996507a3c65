/// The body of `POST /v1/trips/{id}/cancel`; it may be empty, which means no reason given.
public struct CancelRequest: Codable, Sendable, Hashable, Validatable {
    /// Why the rider or driver cancels, free text for support, or nil.
    public var reason: String?

    /// Creates a cancel request.
    public init(reason: String? = nil) { self.reason = reason }

    /// An empty body is a cancel without a reason.
    public static var valueForEmptyBody: CancelRequest? { CancelRequest() }

    /// A reason, when given, must fit in `ProtocolLimits.maxReasonBytes`.
    public func validate() throws(APIError) {
        if let reason {
            try FieldCheck.text(reason, maxLength: ProtocolLimits.maxReasonBytes, at: "reason")
        }
    }
}
