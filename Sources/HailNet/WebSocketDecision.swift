/// What the server does with an upgraded WebSocket.
public enum WebSocketDecision: Sendable {
    /// Keep the connection and run `body` with it on the cooperative pool; the connection is closed
    /// with 1000 when `body` returns (if it is still open).
    case accept(@Sendable (WebSocketConnection) async -> Void)
    /// Close the connection at once with this code and reason (e.g. 4401 "unauthorized").
    ///
    /// lws 4.1.6 completes the upgrade before Swift can answer asynchronously, so a rejection is a
    /// close frame rather than an HTTP status; messages the peer sent meanwhile are discarded.
    case reject(code: UInt16, reason: String)
}
