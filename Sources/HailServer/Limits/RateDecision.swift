/// What a rate limiter says about one request, connection or message.
public enum RateDecision: Sendable, Hashable {
    /// Within the limit; one token was taken.
    case allow
    /// Over the limit; nothing was taken. Retry after this many whole seconds (at least 1), the
    /// `Retry-After` value: by then the bucket holds a token again.
    case reject(retryAfterSeconds: Int)

    /// True for `.allow`.
    public var isAllowed: Bool { self == .allow }
}
