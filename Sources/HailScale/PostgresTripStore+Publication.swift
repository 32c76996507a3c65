import Foundation
import HailCore
import HailProtocol
import HailServer

extension PostgresTripStore {
    /// How long a node's claim on a redelivery keeps the others off it (PostgreSQL's clock): longer than one
    /// redelivery takes even against a silent Redis (a publish tried twice and the observers' writes, 2 s each),
    /// short enough that a node that died holding claims delays those changes by only this much.
    public static let redeliveryClaimSeconds = 10.0

    /// Trips whose newest change is not marked published, oldest change first (from the partial index), each
    /// claimed for this node for `redeliveryClaimSeconds`: a trip another node claimed and has not marked is left
    /// to it until its claim lapses, so two nodes' reconcilers do not redeliver one change side by side. Rows
    /// another transaction holds are skipped, not waited for.
    public func unpublished(committedBefore: Date, limit: Int) async throws -> [TripRecord] {
        let records = try await pool.run { connection in
            try connection.query(
                """
                WITH owed AS (
                    SELECT id FROM trips WHERE published_version < version AND updated_at < $1
                    AND redelivery_claimed_until < extract(epoch FROM clock_timestamp())
                    ORDER BY updated_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
                UPDATE trips t SET redelivery_claimed_until = extract(epoch FROM clock_timestamp()) + $3::float8
                FROM owed WHERE t.id = owed.id RETURNING t.updated_at, t.record
                """,
                [committedBefore.timeIntervalSince1970, limit, Self.redeliveryClaimSeconds]
            ).map { row in (try row.double(0), try HailJSON.decode(TripRecord.self, from: try row.data(1))) }
        }
        return records.sorted { ($0.0, $0.1.trip.id) < ($1.0, $1.1.trip.id) }.map(\.1)
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
