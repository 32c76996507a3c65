import Foundation

/// One HTTP request as `HTTPTransport` hands it to an `HTTPExchange`: everything on the wire, and its deadline.
public struct HTTPCall: Sendable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The absolute URL, its path and query percent-encoded as they go on the wire.
    public var url: URL
    /// The request's header fields beyond `Host`, `Content-Length` and `Connection`, which the exchange writes.
    public var headers: [(name: String, value: String)]
    /// The body, or nil for none.
    public var body: Data?
    /// Seconds the whole exchange may take, connecting included, before it counts as no answer.
    public var timeout: TimeInterval

    /// Creates a call.
    public init(
        method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil,
        timeout: TimeInterval
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The first field named `name` (any case), or nil.
    public func value(for name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// `METHOD path` as the caller asked for it, for error messages.
    public var label: String { "\(method) \(url.relativeString)" }
}
