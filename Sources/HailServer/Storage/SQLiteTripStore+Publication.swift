import Foundation
import HailCore
import HailProtocol
import HailStorage

extension SQLiteTripStore {
    /// Trips whose newest change is not marked published, oldest change first (from the partial index).
    public func unpublished(committedBefore: Date, limit: Int) async throws -> [TripRecord] {
        try await database.read { connection in
            try connection.query(
                """
                SELECT record FROM trips WHERE published_version < version AND updated_at < ?
                ORDER BY updated_at LIMIT ?
                """,
                committedBefore.timeIntervalSince1970, limit
            ).map { row in try HailJSON.decode(TripRecord.self, from: Data(try row.value(0, as: [UInt8].self))) }
        }
    }

    /// Marks the trips' changes up to their versions as published, in one transaction.
    public func markPublished(_ versions: [String: Int]) async throws {
        guard !versions.isEmpty else { return }
        try await database.write { connection in
            try connection.transaction {
                for (id, version) in versions.sorted(by: { $0.key < $1.key }) {
                    try connection.run(
                        "UPDATE trips SET published_version = ? WHERE id = ? AND published_version < ?", version, id,
                        version)
                }
            }
        }
    }
}
