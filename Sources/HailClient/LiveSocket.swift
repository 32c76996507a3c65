import Foundation

/// One open live stream, whichever transport opened it.
public final class LiveSocket: Sendable {
    /// Frames in arrival order; the stream finishes when the socket closes.
    public let frames: AsyncStream<SocketFrame>
    private let stream: any SocketStream

    /// Wraps a transport's open stream.
    public init(_ stream: any SocketStream) {
        self.stream = stream
        frames = stream.frames
    }

    /// Sends a text frame; false when the socket is closing.
    @discardableResult
    public func send(text: String) -> Bool { stream.send(.text(text)) }

    /// Sends a binary frame; false when the socket is closing.
    @discardableResult
    public func send(binary: Data) -> Bool { stream.send(.binary(binary)) }

    /// Closes with a code and reason.
    public func close(code: UInt16 = 1000, reason: String = "") { stream.close(code: code, reason: reason) }

    /// Waits for the close and tells how it went (1006 when the connection just died).
    public func closed() async -> SocketClose { await stream.closed() }
}
