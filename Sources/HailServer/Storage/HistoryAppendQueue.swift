import Synchronization

/// The appends waiting for a history group commit, and what the groups did: the part the SQLite and the
/// PostgreSQL group commits share, safe to call from any thread (appends come from the network loops).
///
/// A writer calls `enqueue` for each append and schedules one drain when it says so; the drain takes a group,
/// writes it, hands the outcome to `complete`, and goes on while `continueDraining` says more is pending.
public final class HistoryAppendQueue: Sendable {
    /// One caller's batch and the callback waiting for it.
    public struct Append: Sendable {
        /// The trip the points belong to.
        public let tripID: String
        /// When set, the points are kept only if, as their group is written, the trip is under way with this driver
        /// (`onTrip` in the trips table beside the history): the fare's path is decided by the committed trip, not
        /// by a node's copy of it. Nil keeps them unconditionally.
        public let underWayBy: String?
        /// The points, in the order the driver sent them.
        public let points: [HistoryPoint]
        /// Called once with the group's outcome for this append.
        public let whenCommitted: @Sendable (Result<Void, any Error>) -> Void
    }

    private struct State {
        var pending: [Append] = []
        /// True from the moment a drain is scheduled until it finds nothing pending, so there is one at a time.
        var draining = false
        var statistics = HistoryGroupCommit.Statistics()
        /// Appends queued so far, and of those the ones completed: groups complete in queue order, so every
        /// append up to the `completed`th is done.
        var enqueued = 0
        var completed = 0
        /// Callers of `whenDone` waiting for the appends before them, each with how many must be completed; in
        /// the order they came, so `through` never decreases.
        var waiters: [(through: Int, resume: @Sendable () -> Void)] = []

        /// Counts `count` more appends completed; returns the waiters that were waiting for no more than those.
        mutating func complete(_ count: Int) -> [@Sendable () -> Void] {
            completed += count
            let ready = waiters.prefix { $0.through <= completed }.count
            defer { waiters.removeFirst(ready) }
            return waiters.prefix(ready).map(\.resume)
        }
    }

    private let state = Mutex(State())

    /// An empty queue with no drain.
    public init() {}

    /// Queues an append; true when no drain is in flight and the caller must schedule one. Empty `points`
    /// complete at once, with no group.
    public func enqueue(
        tripID: String, underWayBy driverID: String? = nil, points: [HistoryPoint],
        whenCommitted: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) -> Bool {
        guard !points.isEmpty else {
            whenCommitted(.success(()))
            return false
        }
        return state.withLock { state in
            state.pending.append(
                Append(tripID: tripID, underWayBy: driverID, points: points, whenCommitted: whenCommitted))
            state.enqueued += 1
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
    }

    /// Takes the next group: the oldest `limit` appends pending.
    public func takeGroup(limit: Int = .max) -> [Append] {
        state.withLock { state in
            let count = min(state.pending.count, limit)
            defer { state.pending.removeFirst(count) }
            return Array(state.pending.prefix(count))
        }
    }

    /// Counts the group, then completes each append: with its error in `failures` (by index in `group`), else
    /// with success. `committed` says whether a transaction of the group committed.
    public func complete(_ group: [Append], committed: Bool, failures: [Int: any Error]) {
        guard !group.isEmpty else { return }
        let readers = state.withLock { state in
            // Counted before the completions run, so a caller that saw its completion sees its group counted.
            if committed { state.statistics.committedGroups += 1 } else { state.statistics.failedGroups += 1 }
            state.statistics.committedAppends += group.count - failures.count
            state.statistics.failedAppends += failures.count
            return state.complete(group.count)
        }
        for (index, append) in group.enumerated() {
            append.whenCommitted(failures[index].map { .failure($0) } ?? .success(()))
        }
        for reader in readers { reader() }
    }

    /// Calls `body` once every append queued before this call has completed (committed or failed): at once when
    /// none is pending. A reader calls it first to see every point handed over before it asked, as a fare priced
    /// at a trip's end must: the driver's last fix, taken off the socket a few milliseconds before the end tap
    /// reached the server, was still in a group and went unpriced (11 m of a 1,431 m stalls trip, issue 14).
    public func whenDone(_ body: @escaping @Sendable () -> Void) {
        let waiting = state.withLock { state in
            guard state.completed < state.enqueued else { return false }
            state.waiters.append((through: state.enqueued, resume: body))
            return true
        }
        if !waiting { body() }
    }

    /// Returns once every append queued before the call has completed (`whenDone`).
    public func appendsBefore() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            whenDone { continuation.resume() }
        }
    }

    /// After a group: true when more appends are pending and the drain goes on; false ends the drain.
    public func continueDraining() -> Bool {
        state.withLock { state in
            if state.pending.isEmpty { state.draining = false }
            return state.draining
        }
    }

    /// Ends the drain and fails every pending append with `error`: the writer is gone and will write none.
    public func failPending(_ error: any Error) {
        let (orphans, readers) = state.withLock { state in
            state.draining = false
            defer { state.pending = [] }
            return (state.pending, state.complete(state.pending.count))
        }
        for append in orphans { append.whenCommitted(.failure(error)) }
        for reader in readers { reader() }
    }

    /// The counts so far.
    public var statistics: HistoryGroupCommit.Statistics { state.withLock { $0.statistics } }
}
