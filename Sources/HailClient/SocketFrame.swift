import Foundation

/// A frame received on a live stream.
public enum SocketFrame: Sendable, Hashable {
    /// JSON text.
    case text(String)
    /// The compact binary location batch.
    case binary(Data)
}
