import Foundation
import HailCore
import HailServer

/// Location history in PostgreSQL, written by group commit: concurrent appends share one statement.
public struct PostgresLocationHistoryStore: UnderWayHistoryStore {
    let pool: PostgresPool
    private let groupCommit: PostgresHistoryGroupCommit

    /// A history on `pool`, whose schema is migrated with `PostgresTripStores.migrations`.
    init(pool: PostgresPool) {
        self.pool = pool
        self.groupCommit = PostgresHistoryGroupCommit(pool: pool)
    }

    /// Enqueues the points for the next group commit and returns at once; `whenCommitted` runs once they are
    /// durable, or with the error when none of them was written. A point whose device time the trip already
    /// has is a resend (an unacknowledged batch that comes back as backlog after a reconnect, maybe to another
    /// node) and is ignored.
    public func append(
        tripID: String, points: [HistoryPoint], whenCommitted: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        groupCommit.append(tripID: tripID, points: points, whenCommitted: whenCommitted)
    }

    /// Enqueues the points for the next group commit, kept only if the trip is under way with `driverID` when the
    /// group's statement runs (it reads the trips table in its own snapshot).
    public func append(
        tripID: String, underWayBy driverID: String, points: [HistoryPoint],
        whenCommitted: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        groupCommit.append(tripID: tripID, underWayBy: driverID, points: points, whenCommitted: whenCommitted)
    }

    /// Appends points through the same group commit and returns once they are durable; resends are ignored.
    public func append(tripID: String, points: [HistoryPoint]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            groupCommit.append(tripID: tripID, points: points) { continuation.resume(with: $0) }
        }
    }

    /// How many groups and appends the group commit has written, for tests and benchmarks.
    public var statistics: HistoryGroupCommit.Statistics { groupCommit.statistics }

    /// Returns once every append started before the call has committed or failed.
    public func appendsBefore() async { await groupCommit.appendsBefore() }

    /// The trip's points in device-time order, every append this node made before the call included (another
    /// node's appends are seen once its group has committed).
    public func history(tripID: String) async throws -> [HistoryPoint] {
        await groupCommit.appendsBefore()
        return try await pool.run { connection in
            try connection.query(
                """
                SELECT t, received_at, lat, lng, backlog, heading, speed, standing FROM location_history
                WHERE trip_id = $1 ORDER BY t, seq
                """,
                [tripID]
            ).map { row in
                HistoryPoint(
                    coordinate: Coordinate(lat: try row.double(2), lng: try row.double(3)),
                    t: Date(timeIntervalSince1970: try row.double(0)),
                    receivedAt: Date(timeIntervalSince1970: try row.double(1)), backlog: try row.bool(4),
                    heading: try row.optionalDouble(5), speed: try row.optionalDouble(6), standing: try row.bool(7))
            }
        }
    }
}
