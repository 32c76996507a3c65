import Foundation
import HailCore
import HailProtocol

/// The driver's location pipeline without I/O: filter, policy, batcher and the keep-alive fix.
///
/// Fixes go in with the time they arrive; sends and wake-up times come out. Counting what leaves the
/// phone (batches, points, encoded bytes) here lets the trace tests pin a shift's radio cost exactly.
///
/// The keep-alive exists because a waiting driver standing still gets no fix through the 50 m distance
/// filter, and the server drops drivers silent for 60 s from dispatch: while online and connected, the
/// last fix is sent again, stamped with the current time and zero speed, once `waitingKeepAliveInterval` passes
/// without one (14 s: inside the design's 10-15 s for a waiting driver, four chances in the server's 60 s), or
/// `keepAliveInterval` while a rider watches (12 s: the pin of a car standing at a light is restamped sooner). Only a fix that went out live is repeated: after a tunnel the last buffered fix is history,
/// and stamping it "now" would show the rider a stale position as fresh. A waiting driver none of whose fixes went
/// out live (the app started with the link down, and the car has not moved since) is still held present, by
/// keep-alives without a fix (`heldPresentDue`). When the phone has no fix at all,
/// the keep-alive says so (`LocationBatch.noFix`): the server keeps the driver online and shows it to no
/// rider as a position.
public struct DriverLocationPipeline: Sendable {
    /// What the runtime must do.
    public enum Action: Sendable, Hashable {
        /// Send the batch over the link, then report `ack` or `linkDown`.
        case send(LocationBatch, via: LocationBatcher.Transport)
        /// Call `tick` at this time, replacing any earlier request.
        case wake(at: Date)
    }

    /// What has left the phone so far.
    public struct Stats: Codable, Sendable, Hashable {
        /// Batches sent (every one a radio wake-up), live and backlog.
        public var batches = 0
        /// Of those, batches of offline history.
        public var backlogBatches = 0
        /// Points sent, counting resends.
        public var points = 0
        /// Bytes of the batches in the binary batch format.
        public var bytes = 0
        /// Keep-alive fixes made from the last fix.
        public var keepAlives = 0
        /// Of those, keep-alives sent as having no current fix (none to be had, or the last held behind a moving car).
        public var keepAlivesWithoutFix = 0
        /// Current fixes sent at once at the moments that matter (accepting an offer, arriving).
        public var freshFixes = 0

        /// Creates zero stats.
        public init() {}
    }

    /// The server-side twin of the filter: accuracy, order and speed.
    public private(set) var filter = LocationFilter()
    /// Timing, acks and the offline buffer.
    public private(set) var batcher: LocationBatcher
    /// The policy in force.
    public private(set) var policy: LocationPolicy
    /// The longest an online, connected driver stays silent while a rider watches.
    public let keepAliveInterval: TimeInterval
    /// The longest an online, connected driver waiting for trips stays silent.
    public let waitingKeepAliveInterval: TimeInterval
    /// What has been sent.
    public private(set) var stats = Stats()
    /// What the location source last said about its fix.
    public private(set) var fixStatus = FixStatus.current
    /// True once the source has said anything about its fix: a source that cannot tell leaves its fixes current.
    public private(set) var fixStatusReported = false
    /// True while a rider watches this car (to the pickup, on the trip).
    public private(set) var riderWatching = false
    /// True from the moment the source says it has no fix until a fix comes: the last one is where the
    /// car was, not where it is, even once the source says it has fixes again.
    public private(set) var lastFixIsStale = false

    private var lastLive: LocationPoint?
    /// The last live fix when the link went down, while no newer fix has come: where a driver standing
    /// still still is.
    private var lastLiveBeforeDrop: LocationPoint?
    private var batcherTick: Date?
    /// When the last batch went.
    private var lastSentAt: Date?
    /// When each batch not yet acknowledged went, by seq, for the round trip its acknowledgement closes.
    private var sentTimes: [Int64: Date] = [:]
    /// The quickest round trips of the last two minutes, sent to acknowledged, reported with every batch
    /// (`LocationBatch.roundTrip`) so the server never dates a fix later than it was taken.
    private var roundTrips = SlidingMinimum(window: 120)
    /// When the phone took the last fix it reported (a keep-alive's repeat is not one).
    private var lastFixTakenAt: Date?
    /// When the phone said it came to rest, while it says so.
    private var standingSince: Date?

    /// Creates a pipeline under `policy`, resuming `snapshot` (unacknowledged points become history).
    public init(
        policy: LocationPolicy,
        snapshot: LocationBatcher.Snapshot? = nil,
        bufferCapacity: Int = 1000,
        keepAliveInterval: TimeInterval = 12,
        waitingKeepAliveInterval: TimeInterval = 14
    ) {
        let configuration = LocationBatcher.Configuration(policy: policy, bufferCapacity: bufferCapacity)
        if let snapshot {
            batcher = LocationBatcher(restoring: snapshot, configuration: configuration)
        } else {
            batcher = LocationBatcher(configuration: configuration)
        }
        self.policy = policy
        self.keepAliveInterval = keepAliveInterval
        self.waitingKeepAliveInterval = waitingKeepAliveInterval
    }

    /// A fix from the location source at `now`.
    ///
    /// A fix farther from the last one than the phone's speed explains, or the first after the source said it had
    /// none (a tunnel, a garage), waits for the next to agree with it (`FixConfirmation`): a multipath outlier would
    /// pass the speed check on the gap's allowance and show the rider a place the car is not, live.
    public mutating func fix(_ point: LocationPoint, now: Date) -> [Action] {
        guard !policy.isOff else { return [] }
        if let waiting = confirmation.waiting {
            let believed = confirmWaiting(with: point, now: now)
            return confirmation.waiting == waiting ? believed : believed + wakeAction()
        }
        // Judged as any fix is, without becoming the reference yet: a fix the filter drops waits for nothing.
        guard case .accept = LocationFilter.judge(point, after: filter.lastAccepted) else {
            _ = filter.evaluate(point)
            return []
        }
        guard needsConfirmation(point) else { return believe([point], now: now) + wakeAction() }
        confirmation.wait(on: point)
        return wakeAction()
    }

    /// True when `point`, which the filter would take, must wait for the next fix: the first after the source said
    /// it had none, or one farther from the last fix than the phone's speed explains.
    private func needsConfirmation(_ point: LocationPoint) -> Bool {
        lastFixIsStale || filter.lastAccepted.map { !FixConfirmation.agree($0, point) } ?? false
    }

    /// `point` as the fix after the waiting one: both believed when they agree, else `point` waits in turn; the wake
    /// is the caller's to add.
    private mutating func confirmWaiting(with point: LocationPoint, now: Date) -> [Action] {
        // Invalid or too inaccurate: the filter counts it, whatever its reference, and it judges no other fix.
        if case .reject = LocationFilter.judge(point, after: nil) {
            _ = filter.evaluate(point)
            return []
        }
        return believe(confirmation.next(point), now: now)
    }

    /// The fix waiting for the next to agree with it, and how many such fixes were dropped.
    public private(set) var confirmation = FixConfirmation()

    /// Takes `points` through the filter into the batcher, oldest first; the wake is the caller's to add.
    private mutating func believe(_ points: [LocationPoint], now: Date) -> [Action] {
        var actions: [Action] = []
        for point in points {
            guard filter.evaluate(point) == .accept else { continue }
            lastFixIsStale = false
            lastFixTakenAt = point.t
            actions += feed(point, now: now)
        }
        return actions
    }

    /// The time asked for by `wake` has come (early or late calls are harmless).
    public mutating func tick(now: Date) -> [Action] {
        var actions: [Action] = []
        // Nothing came to contradict the waiting fix: the car stands, or crawls under the filter.
        if let believed = confirmation.expire(now: now) { actions += believe([believed], now: now) }
        actions += record(batcher.tick(now: now), now: now)
        if let due = keepAliveDue, now >= due, let last = lastLive {
            var point = last
            point.t = now
            point.speed = 0
            stats.keepAlives += 1
            // Not shown to the filter: a real fix taken in the same instant must still pass as in order.
            actions += keepAlive(point, now: now)
        } else if let due = heldPresentDue, now >= due, let believed = filter.lastAccepted {
            var point = believed
            point.t = now
            point.speed = 0
            stats.keepAlives += 1
            stats.keepAlivesWithoutFix += 1
            actions += record(batcher.keepAliveWithoutFix(point, now: now), now: now)
        }
        return actions + wakeAction()
    }

    /// Adopts a new policy (activity, heat or Low Power changed).
    public mutating func setPolicy(_ policy: LocationPolicy, now: Date) -> [Action] {
        self.policy = policy
        return record(batcher.policyChanged(policy, now: now), now: now) + wakeAction()
    }

    /// The trip changed state: what waits goes now, so the server sees where the car was at the tap.
    public mutating func tripStateChanged(now: Date) -> [Action] {
        record(batcher.tripStateChanged(now: now), now: now) + wakeAction()
    }

    /// A link works again: the offline history goes first. A phone that says it stands at its last fix, while a
    /// rider watches, goes on repeating that fix from here: CoreLocation gives a car at rest no new fix, so a car
    /// standing through a dead zone (or a reconnect) told the server nothing more until it drove on, and the trip's
    /// long stop went unseen (issue 41). That fix is where the car is, unlike the last one before a tunnel.
    public mutating func linkUp(_ transport: LocationBatcher.Transport, now: Date) -> [Action] {
        let actions = record(batcher.connectionUp(transport, now: now), now: now)
        if lastLive == nil, riderWatching, !lastFixIsStale, standsAtItsFix, let believed = filter.lastAccepted {
            lastLive = believed
            lastLiveBeforeDrop = nil
        }
        return actions + wakeAction()
    }

    /// Neither link gets through: buffer from now on.
    public mutating func linkDown() {
        batcher.connectionDown()
        batcherTick = nil
        if let lastLive { lastLiveBeforeDrop = lastLive }
        lastLive = nil
    }

    /// After a reconnect, for a driver waiting for trips: the server may have restarted and forgotten
    /// where this driver is, and a driver standing still gets no fix through the distance filter, so
    /// dispatch would not see it until it moved. When no fix came since the link went down and the last
    /// live one is at most two keep-alive intervals old, it is sent again now as a keep-alive. Never
    /// during a trip: there a rider is watching, and an old fix stamped now would look fresh to them.
    public mutating func waitingDriverReconnected(now: Date) -> [Action] {
        guard lastLive == nil, batcher.transport != nil, !policy.isOff, let last = lastLiveBeforeDrop,
            now.timeIntervalSince(last.t) <= 2 * waitingKeepAliveInterval
        else { return [] }
        lastLiveBeforeDrop = nil
        var point = last
        point.t = now
        point.speed = 0
        stats.keepAlives += 1
        return keepAlive(point, now: now)
    }

    /// Sends the last fix again as a keep-alive: a fix of where the car stands when the phone stands with one
    /// (or cannot tell), else a batch marked as having no fix. A phone that says it is moving yet sent no fix
    /// for the interval is held back by its distance filter: its last fix is up to the filter's distance
    /// (50 m while waiting) behind the car, and repeating it stamped now would claim it is where the car is.
    ///
    /// A phone that says it stands is believed only of a fix it took standing (with a second of slack, the
    /// stationary update and the fix it carries arriving in either order): a repeat of a fix from before the car
    /// came to rest would put it where it passed, and a rider's pin would call that live.
    private mutating func keepAlive(_ point: LocationPoint, now: Date) -> [Action] {
        let repeatable = !fixStatusReported || standsAtItsFix
        guard lastFixIsStale || !repeatable else { return feed(point, now: now) + wakeAction() }
        stats.keepAlivesWithoutFix += 1
        lastLive = point
        lastLiveBeforeDrop = nil
        return record(batcher.keepAliveWithoutFix(point, now: now), now: now) + wakeAction()
    }

    /// True when the phone says it stands and took its last fix standing (with a second of slack, the stationary
    /// update and the fix it carries arriving in either order): that fix is where the car is.
    private var standsAtItsFix: Bool {
        guard fixStatus == .standing, let since = standingSince, let taken = lastFixTakenAt else { return false }
        return taken >= since.addingTimeInterval(-1)
    }

    /// The location source says whether its last fix is still where the car is.
    public mutating func fixStatusChanged(_ status: FixStatus, now: Date) -> [Action] {
        if status == .standing, fixStatus != .standing || standingSince == nil { standingSince = now }
        if status != .standing { standingSince = nil }
        fixStatus = status
        fixStatusReported = true
        guard status == .unavailable else { return wakeAction() }
        lastFixIsStale = true
        // The rider's pin ages from the moment its fix reaches the server: the last fix before the
        // tunnel goes now rather than after the interval, or the pin would claim that wait as fresh.
        guard riderWatching, !batcher.pending.isEmpty else { return wakeAction() }
        return record(batcher.tripStateChanged(now: now), now: now) + wakeAction()
    }

    /// A rider starts or stops watching this car (a trip assigned, ended or cancelled).
    public mutating func riderWatchingChanged(_ watching: Bool, now: Date) -> [Action] {
        riderWatching = watching
        return wakeAction()
    }

    /// A fix taken now, at a moment the rider must see where the car is (an offer accepted, the car
    /// arrived): it goes at once rather than after the interval, and a waiting driver's slower pace
    /// does not leave the rider with a position from before.
    public mutating func freshFix(_ point: LocationPoint, now: Date) -> [Action] {
        guard !policy.isOff else { return [] }
        // A fix that waits already is confirmed or replaced by this one.
        if confirmation.waiting != nil { return confirmWaiting(with: point, now: now) + flushPending(now: now) }
        guard case .accept = LocationFilter.judge(point, after: filter.lastAccepted) else {
            _ = filter.evaluate(point)
            return []
        }
        // Taken at the moment, and no less an outlier for it: one at a trip's start, after the car stood at the
        // pickup, passed the speed check on the stop's allowance and showed the rider the car 110 m off.
        if needsConfirmation(point) {
            confirmation.wait(on: point)
            return flushPending(now: now)
        }
        _ = filter.evaluate(point)
        stats.freshFixes += 1
        lastFixIsStale = false
        lastFixTakenAt = point.t
        if batcher.transport != nil { lastLive = point }
        lastLiveBeforeDrop = nil
        return record(batcher.pointAccepted(point, now: now), now: now) + flushPending(now: now)
    }

    /// What waits in the batcher goes now, as at a trip's change, then the wake.
    private mutating func flushPending(now: Date) -> [Action] {
        (batcher.pending.isEmpty ? [] : record(batcher.tripStateChanged(now: now), now: now)) + wakeAction()
    }

    /// The server acknowledged `seq` and everything before it; `now`, when given, is when the acknowledgement came,
    /// which measures the round trip of batch `seq`.
    public mutating func ack(_ seq: Int64, at now: Date? = nil) {
        batcher.ack(seq)
        if let now, let sent = sentTimes[seq], now >= sent { roundTrips.note(now.timeIntervalSince(sent), at: now) }
        sentTimes = sentTimes.filter { $0.key > seq }
    }

    /// The trip started at `cutoff`: see `LocationBatcher.forgetFixes(takenBefore:)`.
    public mutating func forgetFixes(takenBefore cutoff: Date) {
        batcher.forgetFixes(takenBefore: cutoff)
    }

    /// True when a link is up.
    public var isConnected: Bool { batcher.transport != nil }

    /// The next time `tick` is wanted, if any.
    public var nextWake: Date? {
        [batcherTick, keepAliveDue, heldPresentDue, confirmation.deadline].compactMap { $0 }.min()
    }

    /// When a waiting, connected driver none of whose fixes went out live (the newest believed fix was taken with
    /// the link down and went as history, or the live one from before a drop is too old to repeat) is next held
    /// present: a parked car passes no fix through the distance filter, and without this the server would drop
    /// the driver from dispatch after 60 s of silence, online on their own screen. The keep-alive goes without a
    /// fix (`LocationBatch.noFix`): the server keeps the driver online and in the geo index where it last placed
    /// them, and shows no rider a history fix stamped now as live. Every `waitingKeepAliveInterval` from the last
    /// send, until a live fix takes over (`keepAliveDue`).
    private var heldPresentDue: Date? {
        guard !policy.isOff, batcher.transport != nil, lastLive == nil, !riderWatching,
            let believed = filter.lastAccepted
        else { return nil }
        return max(believed.t, lastSentAt ?? believed.t).addingTimeInterval(waitingKeepAliveInterval)
    }

    private var keepAliveDue: Date? {
        guard !policy.isOff, batcher.transport != nil, let last = lastLive else { return nil }
        guard lastFixIsStale else {
            if riderWatching { return last.t.addingTimeInterval(keepAliveInterval) }
            // A waiting phone moving under its distance filter says so at once (no fix), so its silence counts from
            // the last send: from the last fix, it followed the batch that fix went in, held 10 s, by 4 s.
            let movingUnderFilter = fixStatusReported && fixStatus == .current
            let from = movingUnderFilter ? max(last.t, lastSentAt ?? last.t) : last.t
            return from.addingTimeInterval(waitingKeepAliveInterval)
        }
        // No fix: never while a rider watches (the server would show them nothing from it). Waiting, only
        // as the server's 60 s of silence draw near: the phone has nothing new to say, so a tunnel passes
        // without a send.
        guard !riderWatching else { return nil }
        return last.t.addingTimeInterval(max(waitingKeepAliveInterval, Self.keepAliveWithoutFixSilence))
    }

    /// How long a waiting driver with no fix stays silent: 48 s, 12 s under the server's 60 s so a lost send has
    /// time for a retry.
    public static let keepAliveWithoutFixSilence: TimeInterval = 48

    /// The most batches whose send time is kept for their round trip.
    static let sentTimesKept = 64

    /// Hands `point` to the batcher; the wake is the caller's to add.
    private mutating func feed(_ point: LocationPoint, now: Date) -> [Action] {
        if batcher.transport != nil { lastLive = point }
        // A newer fix, live or history, supersedes the one from before the drop.
        lastLiveBeforeDrop = nil
        return record(batcher.pointAccepted(point, now: now), now: now)
    }

    /// Counts the sends among `actions` and stamps each batch with when it leaves (`sentAt`, the phone's clock).
    private mutating func record(_ actions: [LocationBatcher.Action], now: Date) -> [Action] {
        var result: [Action] = []
        for action in actions {
            switch action {
            case .send(var batch, let transport):
                batch.sentAt = now
                batch.roundTrip = roundTrips.minimum.map { ($0 * 1000).rounded() / 1000 }
                sentTimes[batch.seq] = now
                // Batches a link never acknowledges must not pile up: the oldest has the least to tell.
                if sentTimes.count > Self.sentTimesKept, let oldest = sentTimes.keys.min() {
                    sentTimes.removeValue(forKey: oldest)
                }
                lastSentAt = now
                stats.batches += 1
                if batch.backlog { stats.backlogBatches += 1 }
                stats.points += batch.points.count
                stats.bytes += (try? LocationBatchCodec.encodeBytes(batch).count) ?? 0
                result.append(.send(batch, via: transport))
            case .scheduleTick(let date):
                batcherTick = date
            }
        }
        if batcher.pending.isEmpty { batcherTick = nil }
        return result
    }

    private func wakeAction() -> [Action] {
        nextWake.map { [.wake(at: $0)] } ?? []
    }
}
