/// One open WebSocket as a transport gives it: what `LiveSocket` forwards to.
public protocol SocketStream: Sendable {
    /// Frames in arrival order; finishes when the stream ends.
    var frames: AsyncStream<SocketFrame> { get }
    /// Sends a frame; false when the stream is closing or over.
    func send(_ frame: SocketFrame) -> Bool
    /// Closes with a code and reason.
    func close(code: UInt16, reason: String)
    /// Waits for the end and tells how it went (1006 when the connection just died).
    func closed() async -> SocketClose
}
