/// Why a request, connection or message was refused for going over a rate limit.
public struct RateLimitRefusal: Sendable, Hashable, Error {
    /// Which limit: `requestsPerAddress`, `requestsPerToken`, `connectionsPerAddress`,
    /// `connectionsPerToken` or `messagesPerConnection` (the metric's label).
    public var limit: String
    /// The rate that was exceeded.
    public var rate: Rate
    /// Whole seconds until a retry can succeed (the `Retry-After` value).
    public var retryAfterSeconds: Int

    /// Creates a refusal.
    public init(limit: String, rate: Rate, retryAfterSeconds: Int) {
        self.limit = limit
        self.rate = rate
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// A sentence for the error body or the close reason (under 123 bytes).
    public var message: String {
        let what: String
        switch limit {
        case "requestsPerAddress": what = "requests from this address"
        case "requestsPerToken": what = "requests with this token"
        case "connectionsPerAddress": what = "connections from this address"
        case "connectionsPerToken": what = "connections with this token"
        default: what = "messages on this socket"
        }
        return "too many \(what) (limit \(rate)); retry after \(retryAfterSeconds) s"
    }
}
