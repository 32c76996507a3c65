import Foundation
import HailCore
import HailNet
import Synchronization

/// One driver of `hail bench restarts`: a driver stream through the front that reconnects as the app does
/// (4012 "reconnect now": a jitter of 0-1 s, `Backoff.moveElsewhere`; a drop without a close frame, its node
/// killed: `Backoff.afterDrop`, 0-3 s; any other end: 0.5-1 s, the ceiling doubling to 30 s while connects fail), a
/// batch every second whether connected or not (the phone buffers), and every batch not yet acknowledged
/// sent again, in order, on each new connection.
final class MovingDriver: Sendable {
    /// What the driver's books hold.
    struct State: Sendable {
        var connection: WebSocketConnection?
        /// Bumped by each connect; a close or ack of an older connection is ignored.
        var generation = 0
        var nextSeq: Int64 = 1
        /// Batches sent (or buffered) and not yet acknowledged, oldest first.
        var unacked: [Int64] = []
        var maxAcked: Int64 = 0
        var failedConnects = 0
        /// How the server ended this driver's connections, by close code.
        var closes: [UInt16: Int] = [:]
        /// From here on, the first ack is noted (the SIGKILL's recovery).
        var mark: ContinuousClock.Instant?
        var firstAckAfterMark: ContinuousClock.Instant?
        /// The first handshake completed after `mark` (the ack follows once the node has set the stream up).
        var firstConnectAfterMark: ContinuousClock.Instant?
        /// Connects tried since `mark`.
        var attemptsAfterMark = 0
        /// Failed connects since `mark`, by what the client said (its first words).
        var failuresAfterMark: [String: Int] = [:]
        /// Closes since `mark`, by code and reason.
        var closesAfterMark: [String: Int] = [:]
        /// When the last 4012 came, until the next connection's first ack.
        var movingSince: ContinuousClock.Instant?
        /// Every move so far.
        var moves: [StreamMove] = []
    }

    let index: Int
    private let token: String
    private let frames: LocationFrameFactory
    private let url: String
    private let source: String?
    private let client: WebSocketClient
    private let state = Mutex(State())
    private let stopped = Atomic<Bool>(false)
    private let random: Mutex<SplitMix64>
    private let clock = ContinuousClock()

    /// A driver `index` streaming to `url` (the front's `/v1/drivers/me/live`) from `source` (a 127.0.0.x address).
    init(index: Int, token: String, frames: LocationFrameFactory, url: String, source: String?, client: WebSocketClient)
    {
        self.index = index
        self.token = token
        self.frames = frames
        self.url = url
        self.source = source
        self.client = client
        random = Mutex(SplitMix64(seed: UInt64(index) &+ 0x9E37_79B9))
    }

    /// The books now.
    var books: State { state.withLock { $0 } }

    /// True while a connection is open.
    var isConnected: Bool { state.withLock { $0.connection != nil } }

    /// Connects (the first time, or again after a drop); false when it failed (a retry is scheduled).
    @discardableResult
    func connect() async -> Bool {
        guard !stopped.load(ordering: .relaxed) else { return false }
        let generation = state.withLock { state -> Int in
            state.generation += 1
            if state.mark != nil { state.attemptsAfterMark += 1 }
            return state.generation
        }
        do {
            let connection = try await client.connect(
                to: url, headers: [("Authorization", "Bearer \(token)")], localAddress: source,
                handler: { [self] _ in MovingDriverReader(driver: self, generation: generation) })
            let resend = state.withLock { state -> [Int64]? in
                guard state.generation == generation else { return nil }
                state.connection = connection
                state.failedConnects = 0
                if state.mark != nil, state.firstConnectAfterMark == nil { state.firstConnectAfterMark = clock.now }
                return state.unacked
            }
            guard let resend else {
                connection.close(code: 1000, reason: "replaced")
                return false
            }
            // What the last connection left unacknowledged goes first, in order, as the app's uplink does.
            for seq in resend.suffix(Self.resendLimit) { connection.send(binary: frames.binary(seq: seq)) }
            return true
        } catch {
            let reason = Self.reason(error)
            let attempt = state.withLock { state -> Int in
                state.failedConnects += 1
                if state.mark != nil { state.failuresAfterMark[reason, default: 0] += 1 }
                return state.failedConnects
            }
            scheduleReconnect(after: backoff(attempt))
            return false
        }
    }

    /// At most this many unacknowledged batches are sent again on a new connection (a phone buffers more, and
    /// sends the rest as backlog; here the newest count).
    static let resendLimit = 60

    /// The batch of this second: sent when connected, kept for the next connection otherwise.
    func sendNext() {
        let (seq, connection) = state.withLock { state -> (Int64, WebSocketConnection?) in
            let seq = state.nextSeq
            state.nextSeq += 1
            state.unacked.append(seq)
            return (seq, state.connection)
        }
        connection?.send(binary: frames.binary(seq: seq))
    }

    /// An ack from connection `generation`: every batch up to `seq` is acknowledged.
    fileprivate func acknowledged(_ seq: Int64, generation: Int, at now: ContinuousClock.Instant) {
        state.withLock { state in
            guard state.generation == generation else { return }
            state.maxAcked = max(state.maxAcked, seq)
            state.unacked.removeAll { $0 <= seq }
            if let since = state.movingSince {
                state.moves.append(StreamMove(closedAt: since, took: now - since))
                state.movingSince = nil
            }
            if let mark = state.mark, state.firstAckAfterMark == nil, now >= mark { state.firstAckAfterMark = now }
        }
    }

    /// Connection `generation` ended with `code`: reconnect after the app's wait for that code.
    fileprivate func lost(code: UInt16, reason: String, generation: Int) {
        let current = state.withLock { state -> Bool in
            guard state.generation == generation else { return false }
            state.connection = nil
            state.closes[code, default: 0] += 1
            if code == 4012, state.movingSince == nil { state.movingSince = clock.now }
            if state.mark != nil { state.closesAfterMark["\(code) \(reason.prefix(40))", default: 0] += 1 }
            return true
        }
        guard current, !stopped.load(ordering: .relaxed) else { return }
        switch code {
        case 4012: scheduleReconnect(after: delay(.moveElsewhere))
        case WebSocketCloseInfo.abnormalCode: scheduleReconnect(after: delay(.afterDrop))
        default: scheduleReconnect(after: backoff(1))
        }
    }

    /// Notes the first ack from `instant` on (the SIGKILL's recovery).
    func mark(_ instant: ContinuousClock.Instant) {
        state.withLock { state in
            state.mark = instant
            state.firstAckAfterMark = nil
            state.firstConnectAfterMark = nil
            state.attemptsAfterMark = 0
            state.failuresAfterMark = [:]
            state.closesAfterMark = [:]
        }
    }

    /// A failed connect's reason, short enough to count by: its first words, digits folded.
    static func reason(_ error: any Error) -> String {
        let full = "\(error)"
        let text = (full.range(of: "failed: ").map { full[$0.upperBound...] } ?? full[...]).prefix(48)
        return String(text.map { $0.isNumber ? "#" : $0 })
    }

    /// Stops reconnecting and closes the stream.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        state.withLock { $0.connection }?.close(code: 1000, reason: "bench done")
    }

    private func scheduleReconnect(after seconds: Double) {
        Task { [self] in
            try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
            await connect()
        }
    }

    /// The app's equal-jitter backoff: half the ceiling plus a draw over the other half; 1 s doubling to 30 s.
    private func backoff(_ attempt: Int) -> Double {
        let ceiling = min(30, pow(2, Double(max(1, attempt) - 1)))
        return ceiling / 2 + draw(0...(ceiling / 2))
    }

    private func delay(_ backoff: Backoff) -> Double {
        random.withLock { generator in backoff.delay(afterAttempt: 1, using: &generator) }
    }

    private func draw(_ range: ClosedRange<Double>) -> Double {
        random.withLock { generator in Double.random(in: range, using: &generator) }
    }
}

/// Reads one connection of a `MovingDriver` on the client's loop: acks in, the close out.
final class MovingDriverReader: WebSocketInboundHandler {
    private let driver: MovingDriver
    private let generation: Int
    private let clock = ContinuousClock()

    /// A reader for `driver`'s connection number `generation`.
    init(driver: MovingDriver, generation: Int) {
        self.driver = driver
        self.generation = generation
    }

    func received(_ message: WebSocketMessage, on connection: WebSocketConnection) -> WebSocketReadAction {
        guard case .text(let text) = message, let seq = DriverSession.ackSeq(text) else { return .proceed }
        driver.acknowledged(seq, generation: generation, at: clock.now)
        return .proceed
    }

    func closed(_ info: WebSocketCloseInfo, on connection: WebSocketConnection) {
        driver.lost(code: info.code, reason: info.reason, generation: generation)
    }
}
