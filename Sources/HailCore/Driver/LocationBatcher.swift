import Foundation

/// The driver's send pipeline for accepted fixes: when to send a batch, over which link, which batches
/// still wait for the server's ack, and what to keep while the connection is down.
///
/// Events go in (`pointAccepted`, `tick`, `tripStateChanged`, `policyChanged`, `connectionUp`,
/// `connectionDown`, `ack`) and actions come out: send this batch over the stream or over the HTTP
/// fallback, or call `tick` at a time. No clocks, no timers, no I/O.
///
/// Live sending: a fix waits about `holdInterval` (the policy's shorter interval), so a batch goes with the
/// first fix that arrives once its oldest point is that old, when it is full, or at once after a trip state
/// change (the server sees where the car was when the driver tapped) and for the first fix after reconnecting
/// (the rider's car has been frozen). With no fix by then the timer sends it, `tickGrace` later when fixes are
/// coming (two or more wait): at a fix a second, the fix taken as the oldest point turns the hold old is on its
/// way, and a batch sent a moment before it would leave the rider's pin a second older for the whole next
/// interval. A car in motion goes sooner: with `movingDistance` set, the fix that lies that far from the newest
/// one sent live, `holdInterval` or more after that send, sends its batch; at a fix a second a rider watching a
/// moving car gets a position every 2 s, one watching a slow car every 3 s. Every batch gets the next `seq`;
/// `ack(seq)` retires every batch up to it.
///
/// Offline: fixes go to a bounded buffer. Batches that were in flight without an ack go back into it
/// too, because nobody knows whether they arrived; they are resent under new seqs, so the server should
/// ignore history points whose device time it already holds. When the buffer is full, the thinning rule
/// removes one interior point from the older half of the buffer: the one whose removal shortens the path
/// least (`d(prev, p) + d(p, next) - d(prev, next)`, the oldest on a tie). Stationary repeats and points
/// on straight roads cost nothing to drop, so the driven distance that the fare is built from survives
/// while the resolution of old history coarsens. The first and newest points are never dropped.
///
/// Reconnecting: the buffer goes out first as `backlog` batches (history for distance and fare, never the
/// rider's car) of at most `maxPointsPerBatch`, oldest first. If the newest buffered fix is younger than
/// `holdInterval` it goes last as a live batch, with the highest seq, so the rider's car moves at once
/// rather than after the next fix.
///
/// `snapshot` is what must survive a killed app: the next seq and every point not yet acknowledged.
public struct LocationBatcher: Sendable, Hashable {
    /// The link a batch travels over.
    public enum Transport: String, Codable, Sendable, Hashable, CaseIterable {
        /// The driver's WebSocket, `location` frames.
        case stream
        /// `POST /v1/drivers/me/locations`, when the socket is down but HTTP gets through.
        case http
    }

    /// The batcher's limits.
    public struct Configuration: Codable, Sendable, Hashable {
        /// The longest a live fix waits before it is sent, in seconds.
        public var holdInterval: TimeInterval
        /// The most points in one batch, live or backlog.
        public var maxPointsPerBatch: Int
        /// The most points kept while offline; at least 3.
        public var bufferCapacity: Int
        /// How long past the hold the timer waits for the next fix, while fixes are coming, before a batch goes
        /// without it.
        public var tickGrace: TimeInterval = 0.5
        /// Metres from the last fix sent live past which a fix sends its batch once `holdInterval` has passed
        /// since that send; nil: batches go by the hold alone.
        public var movingDistance: Double?

        /// Creates limits; the defaults suit a trip (2 s hold, 100 points a batch, 1,000 offline points).
        public init(holdInterval: TimeInterval = 2, maxPointsPerBatch: Int = 100, bufferCapacity: Int = 1000) {
            self.holdInterval = holdInterval.isFinite ? max(0, holdInterval) : 0
            self.maxPointsPerBatch = max(1, maxPointsPerBatch)
            self.bufferCapacity = max(3, bufferCapacity)
        }

        /// Limits whose hold is `policy`'s shorter interval, so updates reach the server as often as the
        /// policy promises; an off policy holds nothing.
        public init(policy: LocationPolicy, maxPointsPerBatch: Int = 100, bufferCapacity: Int = 1000) {
            self.init(
                holdInterval: Self.hold(for: policy),
                maxPointsPerBatch: maxPointsPerBatch,
                bufferCapacity: bufferCapacity
            )
            movingDistance = Self.movingDistance(for: policy)
        }

        static func hold(for policy: LocationPolicy) -> TimeInterval {
            policy.isOff ? 0 : policy.interval.lowerBound
        }

        static func movingDistance(for policy: LocationPolicy) -> Double? {
            guard !policy.isOff, let distance = policy.movingDistance, distance.isFinite, distance >= 0 else {
                return nil
            }
            return distance
        }
    }

    /// What the runtime must do.
    public enum Action: Sendable, Hashable {
        /// Send this batch over this link, then report `ack` or `connectionDown`.
        case send(LocationBatch, via: Transport)
        /// Call `tick` at this time (replacing any earlier request).
        case scheduleTick(at: Date)
    }

    /// What a killed app needs to carry on: the next seq and every point the server has not acknowledged.
    public struct Snapshot: Codable, Sendable, Hashable {
        /// The seq the next batch will carry.
        public var nextSeq: Int64
        /// Unacknowledged points, oldest first.
        public var points: [LocationPoint]

        /// Creates a snapshot.
        public init(nextSeq: Int64, points: [LocationPoint]) {
            self.nextSeq = nextSeq
            self.points = points
        }
    }

    /// The limits in force.
    public private(set) var configuration: Configuration
    /// The link in use, or nil while the connection is down.
    public private(set) var transport: Transport?
    /// Batches sent and not yet acknowledged, in seq order.
    public private(set) var inFlight: [LocationBatch] = []
    /// Points kept while offline, oldest first.
    public private(set) var buffer: [LocationPoint] = []
    /// Live points waiting for their batch.
    public private(set) var pending: [LocationPoint] = []
    /// The seq the next batch will carry.
    public private(set) var nextSeq: Int64
    /// How many buffered points the thinning rule has removed.
    public private(set) var thinnedCount = 0
    /// The path length in metres that thinning has removed, the sum of the removed points' costs.
    public private(set) var thinnedDistance: Double = 0

    private var pendingSince: Date?
    /// Where the newest fix of the last live batch was, and when that batch went.
    private var lastLive: LiveSend?

    /// The newest fix of a live batch and when the batch went.
    private struct LiveSend: Sendable, Hashable {
        var coordinate: Coordinate
        var sentAt: Date
    }
    private var sendNextImmediately = false

    /// Creates a batcher with the connection down; the first batch carries `firstSeq`.
    public init(configuration: Configuration = Configuration(), firstSeq: Int64 = 1) {
        self.configuration = configuration
        self.nextSeq = firstSeq
    }

    /// Rebuilds a batcher after a restart: every unacknowledged point becomes offline history.
    public init(restoring snapshot: Snapshot, configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, firstSeq: snapshot.nextSeq)
        for point in snapshot.points { appendToBuffer(point) }
    }

    /// The state to persist: after every event that returned a send (the seq moved, and a restarted app
    /// must never reuse a seq the server has seen), and while offline as often as the newest fixes matter.
    public var snapshot: Snapshot {
        Snapshot(nextSeq: nextSeq, points: inFlightFixes + buffer + pending)
    }

    /// The points of the batches in flight that are fixes (a keep-alive without a fix is no history).
    private var inFlightFixes: [LocationPoint] { inFlight.filter { !$0.noFix }.flatMap(\.points) }

    /// A fix passed the filter at `now`.
    public mutating func pointAccepted(_ point: LocationPoint, now: Date) -> [Action] {
        guard transport != nil else {
            appendToBuffer(point)
            return []
        }
        pending.append(point)
        let since = pendingSince ?? now
        pendingSince = since
        if sendNextImmediately || pending.count >= configuration.maxPointsPerBatch || isDue(since: since, now: now)
            || hasMovedOn(to: point, now: now)
        {
            return flushPending(now: now)
        }
        return pending.count == 1 ? [.scheduleTick(at: deadline(since: since))] : []
    }

    /// A keep-alive from a phone that has no fix: `point` repeats its last fix. Whatever waits goes first, then
    /// the keep-alive alone in a batch marked `noFix`, which the server shows no rider as a position; with the
    /// connection down it is dropped, since it is neither a fix nor history.
    public mutating func keepAliveWithoutFix(_ point: LocationPoint, now: Date) -> [Action] {
        guard let transport else { return [] }
        var actions = flushPending(now: now)
        let batch = LocationBatch(seq: nextSeq, points: [point], noFix: true)
        nextSeq += 1
        inFlight.append(batch)
        actions.append(.send(batch, via: transport))
        return actions
    }

    /// The time asked for by `scheduleTick` has come (an early or late call is harmless).
    public mutating func tick(now: Date) -> [Action] {
        guard transport != nil, let since = pendingSince, !pending.isEmpty else { return [] }
        if now >= deadline(since: since) { return flushPending(now: now) }
        return [.scheduleTick(at: deadline(since: since))]
    }

    /// The trip changed state (accepted, arrived, started, ended): send what is waiting now, or the next fix at once.
    public mutating func tripStateChanged(now: Date) -> [Action] {
        guard transport != nil else { return [] }
        if pending.isEmpty {
            sendNextImmediately = true
            return []
        }
        return flushPending(now: now)
    }

    /// The location policy changed: adopt its interval; going off sends whatever is waiting.
    public mutating func policyChanged(_ policy: LocationPolicy, now: Date) -> [Action] {
        configuration.holdInterval = Configuration.hold(for: policy)
        configuration.movingDistance = Configuration.movingDistance(for: policy)
        return tick(now: now)
    }

    /// A link is up (or the link changed): send the offline history, then carry on live.
    public mutating func connectionUp(_ transport: Transport, now: Date) -> [Action] {
        // Batches in flight on the old link may never be acknowledged: send their points again.
        buffer = inFlightFixes + buffer
        inFlight = []
        self.transport = transport
        sendNextImmediately = true
        var actions: [Action] = []
        var history = buffer
        buffer = []
        var live: LocationPoint?
        if pending.isEmpty, let newest = history.last, now.timeIntervalSince(newest.t) < configuration.holdInterval {
            live = history.removeLast()
        }
        var start = history.startIndex
        while start < history.endIndex {
            let end = min(start + configuration.maxPointsPerBatch, history.endIndex)
            actions.append(send(Array(history[start..<end]), backlog: true))
            start = end
        }
        if let live {
            actions.append(send([live], backlog: false))
            lastLive = LiveSend(coordinate: live.coordinate, sentAt: now)
            sendNextImmediately = false
        }
        if !pending.isEmpty { actions += flushPending(now: now) }
        return actions
    }

    /// Neither the stream nor HTTP gets through (a failed send counts too): buffer from now on.
    public mutating func connectionDown() {
        let unacknowledged = inFlightFixes + buffer + pending
        transport = nil
        inFlight = []
        pending = []
        pendingSince = nil
        buffer = []
        for point in unacknowledged { appendToBuffer(point) }
    }

    /// The trip started at `cutoff`: the fixes taken before it that wait here (the offline buffer, the batch being
    /// held) are dropped, but the newest of them, where the car stood. Flushed after the start, they would be charged
    /// as part of the ride; batches already in flight cannot be called back.
    public mutating func forgetFixes(takenBefore cutoff: Date) {
        let newestBefore = (buffer + pending).filter { $0.t < cutoff }.max { $0.t < $1.t }
        buffer.removeAll { $0.t < cutoff && $0 != newestBefore }
        pending.removeAll { $0.t < cutoff && $0 != newestBefore }
        if pending.isEmpty { pendingSince = nil }
    }

    /// The server acknowledged `seq`: it and every earlier batch are retired.
    public mutating func ack(_ seq: Int64) {
        inFlight.removeAll { $0.seq <= seq }
    }

    /// Whether a fix arriving at `now` sends the batch whose oldest point came at `since`: once the hold has
    /// passed, or comes within half the timer's grace (a quarter second), since fixes a second apart arrive a
    /// few milliseconds early as often as late.
    private func isDue(since: Date, now: Date) -> Bool {
        let hold = configuration.holdInterval
        return now.timeIntervalSince(since) >= (hold > 0 ? hold - configuration.tickGrace / 2 : 0)
    }

    /// Whether `point`, arriving at `now`, sends its batch because the car has moved on: it lies `movingDistance` or
    /// more from the newest fix of the last live batch, which went a hold ago or more (with the same quarter-second
    /// tolerance as `isDue`).
    private func hasMovedOn(to point: LocationPoint, now: Date) -> Bool {
        guard let distance = configuration.movingDistance, let lastLive else { return false }
        let hold = configuration.holdInterval
        return now.timeIntervalSince(lastLive.sentAt) >= hold - configuration.tickGrace / 2
            && point.coordinate.distance(to: lastLive.coordinate) >= distance
    }

    /// When the timer sends the batch whose oldest point came at `since`, if no fix has sent it before: the hold
    /// past it, and the grace while fixes are coming (a lone point, such as a keep-alive, has no fix behind it; a
    /// policy that holds nothing, going off, sends at once).
    private func deadline(since: Date) -> Date {
        let hold = configuration.holdInterval
        let grace = hold > 0 && pending.count >= 2 ? configuration.tickGrace : 0
        return since.addingTimeInterval(hold + grace)
    }

    private mutating func flushPending(now: Date) -> [Action] {
        guard !pending.isEmpty else { return [] }
        let action = send(pending, backlog: false)
        if let newest = pending.last { lastLive = LiveSend(coordinate: newest.coordinate, sentAt: now) }
        pending = []
        pendingSince = nil
        sendNextImmediately = false
        return [action]
    }

    private mutating func send(_ points: [LocationPoint], backlog: Bool) -> Action {
        let batch = LocationBatch(seq: nextSeq, points: points, backlog: backlog)
        nextSeq += 1
        inFlight.append(batch)
        return .send(batch, via: transport ?? .stream)
    }

    private mutating func appendToBuffer(_ point: LocationPoint) {
        buffer.append(point)
        while buffer.count > configuration.bufferCapacity { thinOnce() }
    }

    /// Removes the interior point of the older half whose removal costs the least path length.
    private mutating func thinOnce() {
        let upper = min(buffer.count - 2, buffer.count / 2)
        guard upper >= 1 else {
            buffer.removeFirst()
            return
        }
        var best = 1
        var bestCost = Double.infinity
        for index in 1...upper {
            let previous = buffer[index - 1].coordinate
            let point = buffer[index].coordinate
            let next = buffer[index + 1].coordinate
            let cost = previous.distance(to: point) + point.distance(to: next) - previous.distance(to: next)
            if cost < bestCost {
                bestCost = cost
                best = index
            }
        }
        buffer.remove(at: best)
        thinnedCount += 1
        thinnedDistance += max(0, bestCost)
    }
}
