import Foundation
import HailCore
import HailProtocol
import HailServer

extension PostgresTripStore {
    /// Trips whose newest change is not marked published, oldest change first (from the partial index).
    public func unpublished(committedBefore: Date, limit: Int) async throws -> [TripRecord] {
        try await pool.run { connection in
            try connection.query(
                """
                SELECT record FROM trips WHERE published_version < version AND updated_at < $1
                ORDER BY updated_at LIMIT $2
                """,
                [committedBefore.timeIntervalSince1970, limit]
            ).map { row in try HailJSON.decode(TripRecord.self, from: try row.data(0)) }
        }
    }

    /// Marks the trips' changes up to their versions as published, in one transaction (sorted by id, so two
    /// nodes marking the same trips lock them in the same order).
    public func markPublished(_ versions: [String: Int]) async throws {
        guard !versions.isEmpty else { return }
        try await pool.run { connection in
            try connection.transaction {
                for (id, version) in versions.sorted(by: { $0.key < $1.key }) {
                    _ = try connection.query(
                        "UPDATE trips SET published_version = $2 WHERE id = $1 AND published_version < $2",
                        [id, version])
                }
            }
        }
    }
}
