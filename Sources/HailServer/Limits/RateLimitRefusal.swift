/// Why a request, connection or message was refused for going over a limit.
public struct RateLimitRefusal: Sendable, Hashable, Error {
    /// Which limit: `requestsPerAddress`, `requestsPerToken`, `connectionsPerAddress`,
    /// `connectionsPerToken`, `messagesPerConnection`, `telemetryPerToken` or `openConnectionsPerAddress` (the
    /// metric's label).
    public var limit: String
    /// The rate that was exceeded (nil for a cap on open connections).
    public var rate: Rate?
    /// The cap on open connections that was reached (nil for a rate).
    public var cap: Int?
    /// Whole seconds until a retry can succeed (the `Retry-After` value).
    public var retryAfterSeconds: Int

    /// Creates a refusal.
    public init(limit: String, rate: Rate? = nil, cap: Int? = nil, retryAfterSeconds: Int) {
        self.limit = limit
        self.rate = rate
        self.cap = cap
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// A sentence for the error body or the close reason (under 123 bytes).
    public var message: String {
        if let cap {
            return "too many open connections from this address (limit \(cap)); close one or retry later"
        }
        let what: String
        switch limit {
        case "requestsPerAddress": what = "requests from this address"
        case "requestsPerToken": what = "requests with this token"
        case "connectionsPerAddress": what = "connections from this address"
        case "connectionsPerToken": what = "connections with this token"
        case "telemetryPerToken": what = "telemetry batches with this token"
        default: what = "messages on this socket"
        }
        let limit = rate.map { " (limit \($0))" } ?? ""
        return "too many \(what)\(limit); retry after \(retryAfterSeconds) s"
    }
}
