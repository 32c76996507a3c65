/// How a WebSocket connection ended.
public struct WebSocketCloseInfo: Sendable, Equatable {
    /// The close code (1000 normal, 1001 going away, 1006 no close frame, 1009 too big, 4009 slow consumer...).
    public var code: UInt16
    /// The close reason text, possibly empty.
    public var reason: String
    /// True when the peer sent the close frame, false when this side closed or the link dropped.
    public var byPeer: Bool

    /// A close record.
    public init(code: UInt16, reason: String, byPeer: Bool) {
        self.code = code
        self.reason = reason
        self.byPeer = byPeer
    }

    /// Close code sent when a send queue of essential messages overflows.
    public static let slowConsumerCode: UInt16 = 4009
    /// Close code sent when a peer has more messages waiting to be read than the inbound queue allows.
    public static let tooManyMessagesCode: UInt16 = 4029
    /// Close code sent when an inbound message exceeds the configured maximum.
    public static let messageTooBigCode: UInt16 = 1009
    /// Close code recorded when the connection ended without a close frame.
    public static let abnormalCode: UInt16 = 1006
}
