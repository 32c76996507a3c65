import HailServer
import Synchronization

/// A WebSocket whose client has already sent `frames` and then closed: the streams read them, and what
/// they send back and the close they choose are kept for the fuzzer's checks.
public final class RecordingConnection: LiveConnection {
    /// The frames, then the end of the stream.
    public let inbound: AsyncStream<LiveInbound>
    private let record = Mutex(Record())

    /// What the server did on this connection.
    public struct Record: Sendable {
        /// Every frame sent, in order.
        public var sent: [BusMessage] = []
        /// The close code and reason, if the server closed.
        public var closed: (code: UInt16, reason: String)?
    }

    /// A connection that delivers `frames` and ends.
    public init(frames: [LiveInbound]) {
        inbound = AsyncStream { continuation in
            for frame in frames { continuation.yield(frame) }
            continuation.finish()
        }
    }

    /// What was sent and how it closed.
    public var recorded: Record { record.withLock { $0 } }

    /// Keeps the frame.
    public func send(_ message: BusMessage) async { record.withLock { $0.sent.append(message) } }

    /// Keeps the first close.
    public func close(code: UInt16, reason: String) async {
        record.withLock { if $0.closed == nil { $0.closed = (code, reason) } }
    }
}
