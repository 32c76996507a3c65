import Foundation
import HailAppSeams
import HailCore
import HailProtocol
import HailThreads

/// A `DriverChannel` a test plays the server's side of: every batch is acknowledged at once unless the stream has
/// gone silent, and connecting fails (no answer) while it is refusing.
public final class ScriptedDriverChannel: DriverChannel {
    private struct State {
        var continuation: AsyncStream<DriverServerFrame>.Continuation?
        /// Every batch sent, oldest first.
        public var sent: [LocationBatch] = []
        var silent = false
        var refusing = false
        var connects = 0
        var serverClose: UInt16?
    }

    private let state = Locked(State())
    private let serverTime: Date

    /// A channel whose `hello` says the server's time is `serverTime`.
    public init(serverTime: Date) { self.serverTime = serverTime }

    /// Opens a stream that starts with `hello`.
    public func connect() async throws -> AsyncStream<DriverServerFrame> {
        let (stream, continuation) = AsyncStream.makeStream(of: DriverServerFrame.self)
        let refused = state.withLock { state -> Bool in
            if state.refusing { return true }
            state.continuation = continuation
            state.connects += 1
            state.serverClose = nil
            return false
        }
        if refused { throw CallError.noAnswer("the network is unreachable") }
        continuation.yield(.hello(serverTime: serverTime))
        return stream
    }

    /// Records `batch` and acknowledges it, unless silent.
    public func send(_ batch: LocationBatch) async throws {
        let continuation = state.withLock { state in
            state.sent.append(batch)
            return state.silent ? nil : state.continuation
        }
        continuation?.yield(.ack(LocationAck(seq: batch.seq)))
    }

    /// Ends the open stream.
    public func disconnect() async {
        state.withLock { $0.continuation }?.finish()
    }

    /// Closes the open stream as the server would, with `code`.
    public func close(code: UInt16) {
        state.withLock { state in
            state.serverClose = code
            return state.continuation
        }?.finish()
    }

    /// The code of the last close made by `close(code:)`, nil after a drop.
    public func lastServerClose() async -> UInt16? { state.withLock { $0.serverClose } }

    /// Sends `frame` down the open stream, as the server would.
    public func push(_ frame: DriverServerFrame) { _ = state.withLock { $0.continuation }?.yield(frame) }

    /// Every batch sent, oldest first.
    public var sent: [LocationBatch] { state.withLock { $0.sent } }

    /// How many streams were opened.
    public var connects: Int { state.withLock { $0.connects } }

    /// The socket stays open but nothing comes back: no acks.
    public func goSilent(_ silent: Bool) { state.withLock { $0.silent = silent } }

    /// Connecting fails (a tunnel) until set back.
    public func refuse(_ refusing: Bool) { state.withLock { $0.refusing = refusing } }
}
