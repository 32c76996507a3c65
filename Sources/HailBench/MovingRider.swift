import Foundation
import HailCore
import HailNet
import Synchronization

/// One rider of `hail bench restarts` watching a trip through the front: its stream reconnects as the app's does
/// (4012: a jitter of 0-1 s; any other end: the backoff), asking `after=` the newest position it has and
/// `version=` the newest trip version, so a reconnect resyncs; books the longest time without a position and
/// every trip version it was sent.
final class MovingRider: Sendable {
    /// The rider's books.
    struct State: Sendable {
        var connection: WebSocketConnection?
        var generation = 0
        var failedConnects = 0
        var cursor: Int64?
        /// The newest trip version received.
        var version: Int?
        /// Trip versions received (`tripUpdated`), in order, repeats included.
        var versions: [Int] = []
        var lastPositionAt: ContinuousClock.Instant?
        /// The longest time between two positions since `measuring`.
        var longestGap: Duration = .zero
        /// When the longest gap so far ended (the position that ended it).
        var longestGapEnd: ContinuousClock.Instant?
        var measuring = false
        var closes: [UInt16: Int] = [:]
        /// When the last 4012 came, until the next connection's first position.
        var movingSince: ContinuousClock.Instant?
        /// Every move so far.
        var moves: [StreamMove] = []
    }

    let tripID: String
    /// The index of the driver whose trip this rider watches.
    let driverIndex: Int
    private let token: String
    private let base: String
    private let client: WebSocketClient
    private let state = Mutex(State())
    private let stopped = Atomic<Bool>(false)
    private let random: Mutex<SplitMix64>

    /// A rider of `tripID` on the front at `base` (`ws://host:port`).
    init(index: Int, tripID: String, token: String, base: String, client: WebSocketClient) {
        self.tripID = tripID
        driverIndex = index
        self.token = token
        self.base = base
        self.client = client
        random = Mutex(SplitMix64(seed: UInt64(index) &+ 0x5151))
    }

    /// The books now.
    var books: State { state.withLock { $0 } }

    /// From now on gaps count (and the clock of the last position restarts now).
    func startMeasuring(at now: ContinuousClock.Instant) {
        state.withLock { state in
            state.measuring = true
            state.longestGap = .zero
            state.longestGapEnd = nil
            state.lastPositionAt = now
        }
    }

    /// The longest time without a position since `startMeasuring`, the time since the last one at `now` included.
    func longestGap(until now: ContinuousClock.Instant) -> Duration {
        state.withLock { state in
            guard let last = state.lastPositionAt else { return state.longestGap }
            return max(state.longestGap, now - last)
        }
    }

    /// The longest gap as `longestGap(until:)` gives it, and when it ended (`now` for one still open).
    func longestGapSpan(until now: ContinuousClock.Instant) -> (gap: Duration, end: ContinuousClock.Instant) {
        state.withLock { state in
            if let last = state.lastPositionAt, now - last > state.longestGap { return (now - last, now) }
            return (state.longestGap, state.longestGapEnd ?? now)
        }
    }

    /// Opens the stream (again); a failure schedules the next try.
    func connect() async {
        guard !stopped.load(ordering: .relaxed) else { return }
        let (generation, cursor, version) = state.withLock { state -> (Int, Int64?, Int?) in
            state.generation += 1
            return (state.generation, state.cursor, state.version)
        }
        var query: [String] = []
        if let cursor { query.append("after=\(cursor)") }
        if let version, cursor != nil { query.append("version=\(version)") }
        let url = base + "/v1/trips/\(tripID)/live" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        do {
            let connection = try await client.connect(
                to: url, headers: [("Authorization", "Bearer \(token)")],
                handler: { [self] _ in MovingRiderReader(rider: self, generation: generation) })
            let current = state.withLock { state -> Bool in
                guard state.generation == generation else { return false }
                state.connection = connection
                state.failedConnects = 0
                return true
            }
            if !current { connection.close(code: 1000, reason: "replaced") }
        } catch {
            let attempt = state.withLock { state -> Int in
                state.failedConnects += 1
                return state.failedConnects
            }
            let ceiling = min(30, pow(2, Double(attempt - 1)))
            scheduleReconnect(after: ceiling / 2 + draw(0...(ceiling / 2)))
        }
    }

    /// A `driverMoved` with `seq`, or a `tripUpdated` with `version`, on connection `generation`.
    fileprivate func received(seq: Int64?, version: Int?, generation: Int, at now: ContinuousClock.Instant) {
        state.withLock { state in
            guard state.generation == generation else { return }
            if let seq {
                if state.measuring, let last = state.lastPositionAt, now - last > state.longestGap {
                    state.longestGap = now - last
                    state.longestGapEnd = now
                }
                state.lastPositionAt = now
                state.cursor = max(state.cursor ?? 0, seq)
                if let since = state.movingSince {
                    state.moves.append(StreamMove(closedAt: since, took: now - since))
                    state.movingSince = nil
                }
            }
            if let version {
                state.versions.append(version)
                state.version = max(state.version ?? 0, version)
            }
        }
    }

    /// Connection `generation` ended with `code`.
    fileprivate func lost(code: UInt16, generation: Int) {
        let current = state.withLock { state -> Bool in
            guard state.generation == generation else { return false }
            state.connection = nil
            state.closes[code, default: 0] += 1
            if code == 4012, state.movingSince == nil { state.movingSince = ContinuousClock.now }
            return true
        }
        guard current, !stopped.load(ordering: .relaxed) else { return }
        scheduleReconnect(after: code == 4012 ? draw(0...1) : 0.5 + draw(0...0.5))
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

    private func draw(_ range: ClosedRange<Double>) -> Double {
        random.withLock { generator in Double.random(in: range, using: &generator) }
    }
}

/// Reads one connection of a `MovingRider` on the client's loop.
final class MovingRiderReader: WebSocketInboundHandler {
    private let rider: MovingRider
    private let generation: Int
    private let clock = ContinuousClock()

    /// A reader for `rider`'s connection number `generation`.
    init(rider: MovingRider, generation: Int) {
        self.rider = rider
        self.generation = generation
    }

    func received(_ message: WebSocketMessage, on connection: WebSocketConnection) -> WebSocketReadAction {
        guard case .text(let text) = message else { return .proceed }
        if let seq = RiderWatch.driverMovedSeq(text) {
            rider.received(seq: seq, version: nil, generation: generation, at: clock.now)
        } else if text.contains(#""type":"tripUpdated""#), let version = Self.version(text) {
            rider.received(seq: nil, version: version, generation: generation, at: clock.now)
        }
        return .proceed
    }

    func closed(_ info: WebSocketCloseInfo, on connection: WebSocketConnection) {
        rider.lost(code: info.code, generation: generation)
    }

    /// The trip's `version` in a `tripUpdated` frame.
    static func version(_ text: String) -> Int? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let trip = object["trip"] as? [String: Any]
        else { return nil }
        return trip["version"] as? Int
    }
}
