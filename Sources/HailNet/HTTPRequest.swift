/// One HTTP/1.1 request with its whole body, as the handler sees it.
public struct HTTPRequest: Sendable {
    /// Upper-case method, e.g. `GET`.
    public var method: String
    /// Decoded path without the query, e.g. `/v1/trips/t1`.
    public var path: String
    /// Decoded query items in order.
    public var query: [QueryItem]
    /// Request headers (case-insensitive lookup).
    public var headers: HTTPHeaders
    /// The request body (empty when there was none).
    public var body: [UInt8]
    /// The peer's IP address as text.
    public var remoteAddress: String
    /// The X-Request-Id sent by the client, or a generated one; echoed on the response.
    public var requestID: String
    /// When the loop had the whole request (its head, or the last byte of its body): a request deadline counts from
    /// here, so time spent queued (behind a busy loop, the handlers ahead of it) is part of the wait the client
    /// sees, and the time the client took to send its body is not.
    public var receivedAt: ContinuousClock.Instant

    /// A request (tests build these to call handlers directly).
    public init(
        method: String, path: String, query: [QueryItem] = [], headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [], remoteAddress: String = "127.0.0.1", requestID: String = "test",
        receivedAt: ContinuousClock.Instant = .now
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.requestID = requestID
        self.receivedAt = receivedAt
    }

    /// The first value of query item `name`, if present.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}

/// An HTTP handler that always answers asynchronously; it runs as a task preferring the loop that read the request
/// (`NetServer(configuration:http:webSocket:)` wraps it as an `HTTPResponder` whose answer is always `.later`).
public typealias HTTPHandler = @Sendable (HTTPRequest) async -> HTTPResponse

/// Decides about an upgraded WebSocket; runs on the cooperative pool, never the loop thread.
public typealias WebSocketHandler = @Sendable (WebSocketRequest) async -> WebSocketDecision
