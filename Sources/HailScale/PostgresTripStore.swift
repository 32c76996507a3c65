import Foundation
import HailCore
import HailProtocol
import HailServer

/// Trips, audit log and idempotency records in PostgreSQL, safe for several nodes writing at once.
public struct PostgresTripStore: TripStore {
    let pool: PostgresPool

    /// The trip with `id`.
    public func record(id: String) async throws -> TripRecord? {
        try await pool.run { connection in
            try connection.query("SELECT record FROM trips WHERE id = $1", [id]).first.map(Self.decode)
        }
    }

    /// The rider's active trip.
    public func activeRecord(riderID: String) async throws -> TripRecord? {
        try await pool.run { connection in
            try connection.query(
                "SELECT record FROM trips WHERE rider_id = $1 AND active ORDER BY id LIMIT 1", [riderID]
            ).first.map(Self.decode)
        }
    }

    /// The driver's active trip.
    public func activeRecord(driverID: String) async throws -> TripRecord? {
        try await pool.run { connection in
            try connection.query(
                "SELECT record FROM trips WHERE driver_id = $1 AND active ORDER BY id LIMIT 1", [driverID]
            ).first.map(Self.decode)
        }
    }

    /// Every active trip.
    public func activeRecords() async throws -> [TripRecord] {
        try await pool.run { connection in
            try connection.query("SELECT record FROM trips WHERE active ORDER BY id").map(Self.decode)
        }
    }

    /// Applies the commit in one transaction if the stored version matches. The row lock taken by
    /// `FOR UPDATE` makes a second node racing on the same trip wait, then read the winner's version and
    /// get `.conflict`; two racers creating the same trip, or reusing one idempotency key, meet a unique
    /// violation instead, which rolls everything back and is also `.conflict`. A second active trip for the rider
    /// or the driver is refused by the unique indexes `trips_one_active_rider` / `trips_one_active_driver` (SQLSTATE
    /// 23505 naming one of them): everything rolls back and the answer is `.activeTripTaken`, naming the trip held.
    public func commit(_ commit: TripCommit) async throws -> CommitOutcome {
        let recordBytes = try HailJSON.encode(commit.record)
        return try await pool.run { connection in
            do {
                return try connection.transaction {
                    let trip = commit.record.trip
                    let stored = try connection.query("SELECT version FROM trips WHERE id = $1 FOR UPDATE", [trip.id])
                    let storedVersion = try stored.first.map { try $0.int(0) }
                    guard storedVersion == commit.expectedVersion else { return CommitOutcome.conflict }
                    try connection.query(
                        """
                        INSERT INTO trips (id, rider_id, driver_id, state, version, active, record, updated_at)
                        VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                        ON CONFLICT (id) DO UPDATE SET driver_id = excluded.driver_id, state = excluded.state,
                            version = excluded.version, active = excluded.active, record = excluded.record,
                            updated_at = excluded.updated_at
                        """,
                        [
                            trip.id, commit.record.riderID, commit.record.driverID, trip.state.rawValue, trip.version,
                            trip.state.isActive, recordBytes, commit.event.at.timeIntervalSince1970,
                        ])
                    let event = commit.event
                    try connection.query(
                        """
                        INSERT INTO trip_events (trip_id, version, intent, actor, state, at)
                        VALUES ($1, $2, $3, $4, $5, $6)
                        """,
                        [
                            event.tripID, event.version, event.intent, event.actor, event.state.rawValue,
                            event.at.timeIntervalSince1970,
                        ])
                    if let entry = commit.idempotency {
                        try connection.query(
                            """
                            INSERT INTO idempotency (principal, route, key, status, body, fingerprint, created_at)
                            VALUES ($1, $2, $3, $4, $5, $6, $7)
                            """,
                            [
                                entry.scope.principal, entry.scope.route, entry.scope.key, entry.response.status,
                                entry.response.body, entry.response.requestFingerprint,
                                entry.response.createdAt.timeIntervalSince1970,
                            ])
                    }
                    return CommitOutcome.committed
                }
            } catch let error as PostgresError where error.isUniqueViolation {
                let party: ActiveTripConflict.Party
                switch error.constraint {
                case ActiveTripMigration.riderIndex?: party = .rider
                case ActiveTripMigration.driverIndex?: party = .driver
                default: return .conflict
                }
                let record = commit.record
                let subject = party == .rider ? record.riderID : record.driverID ?? ""
                // The index waited for the racer's commit before refusing, so a new statement sees its trip.
                let held = try connection.query(
                    "SELECT id FROM trips WHERE \(party.rawValue)_id = $1 AND active AND id <> $2 ORDER BY id LIMIT 1",
                    [subject, record.trip.id]
                ).first
                guard let held else { return .conflict }
                return .activeTripTaken(ActiveTripConflict(party: party, subject: subject, tripID: try held.string(0)))
            }
        }
    }

    /// The audit log, oldest first.
    public func events(tripID: String) async throws -> [TripEventRecord] {
        try await pool.run { connection in
            try connection.query(
                "SELECT trip_id, version, intent, actor, state, at FROM trip_events WHERE trip_id = $1 ORDER BY version",
                [tripID]
            ).map { row in
                TripEventRecord(
                    tripID: try row.string(0), version: try row.int(1), intent: try row.string(2),
                    actor: try row.string(3), state: TripState(rawValue: try row.string(4)) ?? .searching,
                    at: Date(timeIntervalSince1970: try row.double(5)))
            }
        }
    }

    /// The stored answer for a key.
    public func storedResponse(for scope: IdempotencyScope) async throws -> StoredResponse? {
        try await pool.run { connection in
            try connection.query(
                """
                SELECT status, body, fingerprint, created_at FROM idempotency
                WHERE principal = $1 AND route = $2 AND key = $3
                """,
                [scope.principal, scope.route, scope.key]
            ).first.map { row in
                StoredResponse(
                    status: try row.int(0), body: try row.data(1), requestFingerprint: try row.data(2),
                    createdAt: Date(timeIntervalSince1970: try row.double(3)))
            }
        }
    }

    private static func decode(_ row: PostgresRow) throws -> TripRecord {
        try HailJSON.decode(TripRecord.self, from: try row.data(0))
    }
}
