/// How a stream ended.
public struct SocketClose: Sendable, Hashable {
    /// The WebSocket close code (1006 when the connection just died).
    public var code: UInt16
    /// The reason the peer gave.
    public var reason: String

    /// Creates a close.
    public init(code: UInt16, reason: String) {
        self.code = code
        self.reason = reason
    }
}
