import Foundation
import HailCore
import HailServer

/// Location history in PostgreSQL.
public struct PostgresLocationHistoryStore: LocationHistoryStore {
    let pool: PostgresPool

    /// Appends points in one transaction; a point whose device time the trip already has is a resend
    /// (an unacknowledged batch that comes back as backlog after a reconnect, maybe to another node) and
    /// is ignored.
    public func append(tripID: String, points: [HistoryPoint]) async throws {
        guard !points.isEmpty else { return }
        try await pool.run { connection in
            try connection.transaction {
                for point in points {
                    try connection.query(
                        """
                        INSERT INTO location_history (trip_id, t, received_at, lat, lng, backlog)
                        VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (trip_id, t) DO NOTHING
                        """,
                        [
                            tripID, point.t.timeIntervalSince1970, point.receivedAt.timeIntervalSince1970,
                            point.coordinate.lat, point.coordinate.lng, point.backlog,
                        ])
                }
            }
        }
    }

    /// The trip's points in device-time order.
    public func history(tripID: String) async throws -> [HistoryPoint] {
        try await pool.run { connection in
            try connection.query(
                "SELECT t, received_at, lat, lng, backlog FROM location_history WHERE trip_id = $1 ORDER BY t, seq",
                [tripID]
            ).map { row in
                HistoryPoint(
                    coordinate: Coordinate(lat: try row.double(2), lng: try row.double(3)),
                    t: Date(timeIntervalSince1970: try row.double(0)),
                    receivedAt: Date(timeIntervalSince1970: try row.double(1)), backlog: try row.bool(4))
            }
        }
    }
}
