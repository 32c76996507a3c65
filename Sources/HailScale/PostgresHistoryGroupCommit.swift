import Foundation
import HailServer

/// Location history appends from any thread, written many batches to one PostgreSQL statement (group commit).
///
/// Every driver on a trip sends a batch a second, and a transaction per batch is a round trip and a WAL flush
/// each. Here an append only enqueues under a mutex. The first append that finds no group in flight queues one
/// job on the pool; the job takes everything pending and writes it as a single `INSERT … SELECT FROM unnest(…)`
/// whose ten parameters are arrays, one element per point. One statement outside `BEGIN` is one transaction,
/// so a group is one round trip and one commit however many drivers it holds; only after it commits are the
/// appends' completions called, so an acknowledged point survives a SIGKILL of the node (the server commits
/// synchronously). Appends that arrive meanwhile wait for the next group, which the job queues behind the
/// pool's other work: groups grow with the load and the commits per second stay bounded.
///
/// A group that fails on its data (a statement error, not a lost connection) is written again one append per
/// statement, so one bad batch fails alone. A resent point (`ON CONFLICT (trip_id, t) DO NOTHING`) is ignored,
/// within a group as across groups.
final class PostgresHistoryGroupCommit: Sendable {
    private typealias Append = HistoryAppendQueue.Append

    /// The group's points as ten arrays; a point whose append names a driver (`underWayBy`) is kept only if its trip
    /// is under way with that driver as the statement runs. The statement's snapshot holds every trip commit that
    /// finished before it began, so a fix sent after its app learned the trip had started (the commit came first)
    /// is kept, whichever node committed the start and whatever that node's copy in Redis still says.
    static let insertSQL = """
        INSERT INTO location_history (trip_id, t, received_at, lat, lng, backlog, heading, speed, standing)
        SELECT u.trip_id, u.t, u.received_at, u.lat, u.lng, u.backlog, u.heading, u.speed, u.standing FROM unnest(
            $1::text[], $2::float8[], $3::float8[], $4::float8[], $5::float8[], $6::bool[], $7::float8[], $8::float8[],
            $9::bool[], $10::text[]) AS u(trip_id, t, received_at, lat, lng, backlog, heading, speed, standing, driver_id)
        WHERE u.driver_id IS NULL OR EXISTS (
            SELECT 1 FROM trips WHERE trips.id = u.trip_id AND trips.driver_id = u.driver_id AND trips.state = 'onTrip')
        ON CONFLICT (trip_id, t) DO NOTHING
        """

    /// The most appends one statement carries, so a backlog after an outage is written in bounded pieces.
    static let largestGroup = 4096

    private let pool: PostgresPool
    private let queue = HistoryAppendQueue()

    /// Group-commits into `pool`'s `location_history` table.
    init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Enqueues `points` for the next group and returns at once, so it is safe on a network loop thread.
    /// `whenCommitted` runs exactly once, on a pool thread: success after the group committed, or the error,
    /// and then none of these points was written.
    func append(
        tripID: String, points: [HistoryPoint], whenCommitted: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        if queue.enqueue(tripID: tripID, points: points, whenCommitted: whenCommitted) { queueDrain() }
    }

    /// `append`, keeping the points only if, as their group is written, the trip is under way with `driverID`.
    func append(
        tripID: String, underWayBy driverID: String, points: [HistoryPoint],
        whenCommitted: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        if queue.enqueue(tripID: tripID, underWayBy: driverID, points: points, whenCommitted: whenCommitted) {
            queueDrain()
        }
    }

    /// The counts so far.
    var statistics: HistoryGroupCommit.Statistics { queue.statistics }

    /// Returns once every append this node made before the call has committed or failed.
    func appendsBefore() async { await queue.appendsBefore() }

    private func queueDrain() {
        guard let refusal = pool.submit({ connection in self.drainOneGroup(on: connection) }) else { return }
        // The pool is closed or its queue full: nothing pending will be written, so every append hears so now
        // (its batch goes unacknowledged and the phone sends it again).
        queue.failPending(refusal)
    }

    /// Commits up to `largestGroup` pending appends as one statement, completes them, and queues the next group.
    private func drainOneGroup(on connection: PostgresConnection) {
        let group = queue.takeGroup(limit: Self.largestGroup)
        let failures = Self.write(group, on: connection)
        queue.complete(group, committed: failures.count < group.count, failures: failures)
        if queue.continueDraining() { queueDrain() }
    }

    /// Writes the group in one statement; on a data error, each append in a statement of its own. Returns the
    /// appends that failed, by index.
    private static func write(_ group: [Append], on connection: PostgresConnection) -> [Int: any Error] {
        guard !group.isEmpty else { return [:] }
        do {
            try PostgresPool.job(on: connection) { connection in try insert(group[...], on: connection) }
            return [:]
        } catch let error as PostgresError
            where error.code != .connection && error.code != .timedOut && group.count > 1
        {
            var failures: [Int: any Error] = [:]
            for index in group.indices {
                do {
                    try PostgresPool.job(on: connection) { connection in
                        try insert(group[index...index], on: connection)
                    }
                } catch {
                    failures[index] = error
                }
            }
            return failures
        } catch {
            return Dictionary(uniqueKeysWithValues: group.indices.map { ($0, error) })
        }
    }

    /// One `INSERT` of every point of `appends`, the columns and each point's condition sent as ten arrays.
    private static func insert(_ appends: ArraySlice<Append>, on connection: PostgresConnection) throws {
        let count = appends.reduce(0) { $0 + $1.points.count }
        var tripIDs: [String] = []
        var times: [Double] = []
        var received: [Double] = []
        var lats: [Double] = []
        var lngs: [Double] = []
        var backlogs: [Bool] = []
        var headings: [Double?] = []
        var speeds: [Double?] = []
        var standings: [Bool] = []
        var drivers: [String?] = []
        tripIDs.reserveCapacity(count)
        times.reserveCapacity(count)
        received.reserveCapacity(count)
        lats.reserveCapacity(count)
        lngs.reserveCapacity(count)
        backlogs.reserveCapacity(count)
        headings.reserveCapacity(count)
        speeds.reserveCapacity(count)
        standings.reserveCapacity(count)
        drivers.reserveCapacity(count)
        for append in appends {
            for point in append.points {
                tripIDs.append(append.tripID)
                times.append(point.t.timeIntervalSince1970)
                received.append(point.receivedAt.timeIntervalSince1970)
                lats.append(point.coordinate.lat)
                lngs.append(point.coordinate.lng)
                backlogs.append(point.backlog)
                headings.append(point.heading)
                speeds.append(point.speed)
                standings.append(point.standing)
                drivers.append(append.underWayBy)
            }
        }
        try connection.query(
            insertSQL, [tripIDs, times, received, lats, lngs, backlogs, headings, speeds, standings, drivers])
    }
}
