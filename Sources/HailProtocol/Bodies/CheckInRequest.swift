import HailCore

/// The body of `POST /v1/trips/{id}/check-in`: `{"answer": "ok"}` or `{"answer": "help"}`.
public struct CheckInRequest: Codable, Sendable, Hashable, Validatable {
    /// The rider's answer to the trip's alert.
    public var answer: CheckInAnswer

    /// Creates a check-in.
    public init(answer: CheckInAnswer) { self.answer = answer }

    /// The answer is one of the enum's values, which decoding already checked.
    public func validate() throws(APIError) {}
}
