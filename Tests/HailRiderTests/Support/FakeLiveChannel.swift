import Foundation
import HailAppSeams
import HailCore
import HailProtocol
import HailRider
import HailTestSupport
import Synchronization

/// One stream the model opened; the test plays the server through it.
final class FakeConnection: Sendable {
    let tripID: String
    let after: Int64?
    /// The trip version the model said it shows.
    var version: Int? { versionShown.withLock { $0 } }
    let versionShown = Mutex<Int?>(nil)
    private let continuation: AsyncThrowingStream<RiderServerFrame, any Error>.Continuation
    private let ended = Mutex(false)
    /// Gets one value when the model stops reading this stream.
    let closes = Mailbox<Bool>()

    init(tripID: String, after: Int64?, continuation: AsyncThrowingStream<RiderServerFrame, any Error>.Continuation) {
        self.tripID = tripID
        self.after = after
        self.continuation = continuation
    }

    /// Sends frames in the given order (the test writes reorders and duplicates out explicitly).
    func send(_ frames: RiderServerFrame...) {
        for frame in frames { continuation.yield(frame) }
    }

    /// The server's hello at server time `seconds` after the epoch.
    func hello(at seconds: Double) { send(.hello(serverTime: Fixtures.serverEpoch.addingTimeInterval(seconds))) }

    /// A position frame.
    func moved(_ location: DriverLocation, eta: Int? = nil) {
        send(.driverMoved(DriverMoved(location: location, etaSeconds: eta)))
    }

    /// The connection dies (a tunnel).
    func drop() { continuation.finish(throwing: URLError(.networkConnectionLost)) }

    /// The server closes with `code`, as the live client reports it (a 1000 finishes the stream).
    func close(code: UInt16) {
        continuation.finish(throwing: CallError.streamClosed(code: code, reason: "closed by the test"))
    }

    /// True once the consumer stopped reading (the model closed the stream).
    var isClosedByClient: Bool { ended.withLock { $0 } }

    func markEnded() {
        ended.withLock { $0 = true }
        Task { await closes.put(true) }
    }
}

/// The `LiveTripChannel` seam as a test server: every open is handed to the test, or refused.
final class FakeLiveChannel: LiveTripChannel {
    let connections = Mailbox<FakeConnection>()
    private let refusals = Mutex(0)

    /// Refuses the next `count` opens (a proxy that blocks WebSockets).
    func refuse(next count: Int) { refusals.withLock { $0 = count } }

    func open(tripID: String, after seq: Int64?) async throws -> AsyncThrowingStream<RiderServerFrame, any Error> {
        try await open(tripID: tripID, after: seq, version: nil)
    }

    func open(tripID: String, after seq: Int64?, version: Int?) async throws
        -> AsyncThrowingStream<RiderServerFrame, any Error>
    {
        let refused = refusals.withLock { count -> Bool in
            guard count > 0 else { return false }
            count -= 1
            return true
        }
        if refused { throw URLError(.badServerResponse) }
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: RiderServerFrame.self)
        let connection = FakeConnection(tripID: tripID, after: seq, continuation: continuation)
        connection.versionShown.withLock { $0 = version }
        continuation.onTermination = { _ in connection.markEnded() }
        await connections.put(connection)
        return stream
    }
}
