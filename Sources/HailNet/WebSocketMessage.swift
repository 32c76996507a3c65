/// One complete inbound WebSocket message (fragments already reassembled).
public enum WebSocketMessage: Sendable, Equatable {
    /// A text frame's payload.
    case text(String)
    /// A binary frame's payload.
    case binary([UInt8])
}
