/// The opening handshake of a WebSocket, as the accept/reject handler sees it.
public struct WebSocketRequest: Sendable {
    /// Decoded request path without the query, e.g. `/v1/trips/t1/live`.
    public var path: String
    /// Decoded query items in order (`access_token` travels here for browsers).
    public var query: [QueryItem]
    /// Request headers (case-insensitive lookup).
    public var headers: HTTPHeaders
    /// The peer's IP address as text.
    public var remoteAddress: String
    /// The X-Request-Id sent by the peer, or a generated one.
    public var requestID: String

    /// A handshake description.
    public init(path: String, query: [QueryItem], headers: HTTPHeaders, remoteAddress: String, requestID: String) {
        self.path = path
        self.query = query
        self.headers = headers
        self.remoteAddress = remoteAddress
        self.requestID = requestID
    }

    /// The request without its headers and query: what an open stream keeps of its handshake.
    var trimmed: WebSocketRequest {
        WebSocketRequest(
            path: path, query: [], headers: HTTPHeaders(), remoteAddress: remoteAddress, requestID: requestID)
    }

    /// The first value of query item `name`, if present.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}
