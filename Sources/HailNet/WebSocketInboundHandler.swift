/// Reads one WebSocket's messages on the loop thread that owns its socket, with no task and no stream
/// per message (the shape of swift-nio's inbound channel handlers).
///
/// HailNet calls it synchronously from the lws receive callback; it answers with what the connection
/// should do next. Writes go through `connection.send`, which on the loop thread queues the message and
/// asks lws for a writable callback in the same turn, so an answer leaves in the loop iteration that read
/// its request. A handler is created on its loop and is never touched from another thread.
public protocol WebSocketInboundHandler: AnyObject {
    /// One complete message (fragments reassembled).
    func received(_ message: WebSocketMessage, on connection: WebSocketConnection) -> WebSocketReadAction
    /// Something posted with `connection.post(event:)` from another thread, delivered on the loop.
    func event(_ event: any Sendable, on connection: WebSocketConnection)
    /// The connection has ended; the last call this handler gets.
    func closed(_ info: WebSocketCloseInfo, on connection: WebSocketConnection)
}

extension WebSocketInboundHandler {
    /// Handlers that post nothing ignore events.
    public func event(_ event: any Sendable, on connection: WebSocketConnection) {}
}

/// What the connection does after a handler has taken a message.
public enum WebSocketReadAction: Sendable, Equatable {
    /// Keep reading.
    case proceed
    /// Stop reading the socket (lws rx flow control) until `connection.resumeReading()`: back-pressure
    /// for a handler whose work is still in flight, so a fast client waits in its own socket buffer.
    case pauseReading
    /// Close with this code and reason (queued essential messages, acks included, go out first).
    case close(code: UInt16, reason: String)
}
