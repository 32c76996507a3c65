/// What the server does with an upgraded WebSocket.
public enum WebSocketDecision: Sendable {
    /// Keep the connection and run `body` with it on the cooperative pool; the connection is closed
    /// with 1000 when `body` returns (if it is still open). Its messages arrive on `messages`, handed
    /// over from the loop without a task per message; use `.handle` for a hot path.
    case accept(@Sendable (WebSocketConnection) async -> Void)
    /// Keep the connection and read it on its loop thread: `makeHandler` runs there once, and the handler
    /// it returns gets every message in the receive callback (see `WebSocketInboundHandler`).
    case handle(@Sendable (WebSocketConnection) -> any WebSocketInboundHandler)
    /// Close the connection at once with this code and reason (e.g. 4401 "unauthorized").
    ///
    /// lws 4.1.6 completes the upgrade before Swift can answer asynchronously, so a rejection is a
    /// close frame rather than an HTTP status. The socket is not read while the decision is pending,
    /// so nothing the peer sent meanwhile reaches anyone.
    case reject(code: UInt16, reason: String)
}
