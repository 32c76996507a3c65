import HailStorage

/// Location history appends from any thread, written many batches to one SQLite transaction (group commit).
///
/// Every driver on a trip sends a batch a second, and a transaction per batch costs an fsync each, on one writer.
/// Here an append only enqueues under a mutex. The first append that finds no group in flight schedules one
/// drain on the database's writer thread; the drain takes everything pending, inserts it in one transaction
/// (`INSERT OR IGNORE`, so a resent point is dropped), commits, and only then calls each append's completion.
/// Appends that arrive meanwhile wait for the next group, so the fsyncs per second stay bounded however many
/// drivers there are, and there is one wake-up per group rather than a task or a thread per append.
///
/// Which writer: the trips' own `SQLiteDatabase`, not a second connection on the same file. WAL admits one
/// writer at a time, and two connections would meet only in SQLite's busy handler, which sleeps and polls
/// (1 ms, 2 ms, 5 ms, ... then every 100 ms) and queues no one. A group-commit writer under load holds the
/// write lock almost without pause, since the next group is ready when the last one commits, so a trip commit
/// on the other connection would wake into a held lock again and again. Measured on this machine with two
/// connections (Python's sqlite3: a writer committing 200 rows back to back, a trip commit every 20 ms): 7 trip
/// commits in 8 s, one failed with SQLITE_BUSY at the 5 s timeout. A shared in-process lock would make that
/// safe, but it serialises the two writers exactly as one thread does, with an extra connection and thread.
/// On the one writer thread jobs run in arrival order and each group is a job of its own, so a trip commit waits
/// for at most the group in flight, and a group for the trip commits queued before it. Measured with this type
/// (256 appends always in flight, about 100 groups of 256 a second): trip commits p50 4-10 ms, p99 13-42 ms,
/// none failed. Durability is the database's, synchronous=FULL, so a completion means the points survive a
/// SIGKILL or a power loss.
///
/// A scheduled drain holds this object and the database, so appends still pending when the stores are dropped
/// commit all the same, and a database closed under them fails them with `.closed`: no completion is lost.
public final class HistoryGroupCommit: Sendable {
    /// What the groups did so far, for tests and benchmarks.
    public struct Statistics: Sendable, Hashable {
        /// Transactions that committed.
        public var committedGroups = 0
        /// Appends those transactions made durable.
        public var committedAppends = 0
        /// Transactions that failed as a whole, failing every append in them.
        public var failedGroups = 0
        /// Appends completed with an error, in a failed group or alone in a committed one.
        public var failedAppends = 0

        /// No group yet.
        public init() {}
    }

    private typealias Append = HistoryAppendQueue.Append

    private static let insertSQL =
        """
        INSERT OR IGNORE INTO location_history (trip_id, t, received_at, lat, lng, backlog, heading, speed, standing)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// Whether the trip is under way with the driver, read in the group's own transaction: the trips' commits run on
    /// the same writer thread, so a group sees every trip change committed before it and none after.
    private static let underWaySQL = "SELECT 1 FROM trips WHERE id = ? AND driver_id = ? AND state = 'onTrip'"

    private let database: SQLiteDatabase
    private let queue = HistoryAppendQueue()

    /// Group-commits into the `location_history` table of `database`, which must already be migrated.
    public init(database: SQLiteDatabase) {
        self.database = database
    }

    /// Enqueues `points` for the next group and returns at once, so it is safe on a network loop thread.
    ///
    /// `whenCommitted` is called exactly once: with success after the transaction holding the points committed,
    /// or with the error, in which case none of these points was written. It runs on the database's writer
    /// thread, so it should only hand the result on. Empty `points` complete at once, with no transaction.
    public func append(
        tripID: String, points: [HistoryPoint], whenCommitted: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        if queue.enqueue(tripID: tripID, points: points, whenCommitted: whenCommitted) { scheduleFirstDrain() }
    }

    /// `append`, keeping the points only if, as their group is written, the trip is under way (`onTrip`) with
    /// `driverID` as its driver; otherwise they are dropped and `whenCommitted` still reports success: the batch was
    /// judged against the committed trip, which is what its acknowledgement promises.
    public func append(
        tripID: String, underWayBy driverID: String, points: [HistoryPoint],
        whenCommitted: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        if queue.enqueue(tripID: tripID, underWayBy: driverID, points: points, whenCommitted: whenCommitted) {
            scheduleFirstDrain()
        }
    }

    /// Appends `points` through the same groups and returns once they are durable.
    public func append(tripID: String, points: [HistoryPoint]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            append(tripID: tripID, points: points) { continuation.resume(with: $0) }
        }
    }

    /// Returns once every append made before the call has committed or failed.
    public func appendsBefore() async { await queue.appendsBefore() }

    /// The counts so far.
    public var statistics: Statistics { queue.statistics }

    /// Puts a drain on the writer's queue from whatever thread made the first append.
    private func scheduleFirstDrain() {
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            // An immediate task runs up to its first suspension on the calling thread, which is the hop onto
            // the database: one job for the writer thread and no detour through the cooperative pool.
            Task.immediate { await self.drainOneGroup(on: self.database) }
        } else {
            Task { await self.drainOneGroup(on: self.database) }
        }
    }

    /// Commits everything pending as one group, completes its appends, and queues the next group if any.
    private func drainOneGroup(on database: isolated SQLiteDatabase) {
        let group = queue.takeGroup()
        let outcomes = Self.write(group, on: database)
        queue.complete(group, committed: outcomes.committed, failures: outcomes.failures)
        guard queue.continueDraining() else { return }
        // The task inherits the database's isolation (it uses the isolated parameter), so it is enqueued on the
        // writer thread's own queue from that thread: behind the trip commits that arrived during this group,
        // which therefore run first, and with no other thread woken.
        Task { self.drainOneGroup(on: database) }
    }

    /// What one group's transaction did: whether it committed, and the appends that failed on their own.
    private struct Outcomes {
        var committed: Bool
        var failures: [Int: any Error]
    }

    /// Writes the group in one transaction, each append in a savepoint so that a bad batch fails alone.
    private static func write(_ group: [Append], on database: isolated SQLiteDatabase) -> Outcomes {
        guard !group.isEmpty else { return Outcomes(committed: false, failures: [:]) }
        do {
            let failures = try database.write { connection in
                var failures: [Int: any Error] = [:]
                for (index, append) in group.enumerated() {
                    do {
                        // Nested in the write's transaction this is a savepoint: an error undoes this
                        // append's points and nothing else.
                        try connection.transaction {
                            if let driverID = append.underWayBy,
                                try connection.query(underWaySQL, append.tripID, driverID).isEmpty
                            {
                                return
                            }
                            for point in append.points {
                                try connection.run(
                                    insertSQL, append.tripID, point.t.timeIntervalSince1970,
                                    point.receivedAt.timeIntervalSince1970, point.coordinate.lat,
                                    point.coordinate.lng, point.backlog, point.heading, point.speed,
                                    point.standing)
                            }
                        }
                    } catch {
                        // Some errors (I/O, a full disk, RAISE(ROLLBACK)) end the whole transaction and take
                        // the appends before this one with them; then the group fails as a whole.
                        guard connection.isInTransaction else { throw error }
                        failures[index] = error
                    }
                }
                return failures
            }
            return Outcomes(committed: true, failures: failures)
        } catch {
            // Nothing of the group committed, so every append gets the error.
            return Outcomes(
                committed: false, failures: Dictionary(uniqueKeysWithValues: group.indices.map { ($0, error) }))
        }
    }
}
