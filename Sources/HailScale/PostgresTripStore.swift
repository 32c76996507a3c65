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

    /// The active trips of `driverIDs`, from the active-driver index (the ids go as one JSON array).
    public func activeRecords(driverIDs: [String]) async throws -> [TripRecord] {
        guard !driverIDs.isEmpty else { return [] }
        let ids = String(decoding: try JSONEncoder().encode(driverIDs), as: UTF8.self)
        return try await pool.run { connection in
            try connection.query(
                """
                SELECT record FROM trips WHERE active
                AND driver_id IN (SELECT jsonb_array_elements_text($1::jsonb)) ORDER BY id
                """, [ids]
            ).map(Self.decode)
        }
    }

    /// Applies the commit if the stored version matches, as one statement: PostgreSQL runs it as one transaction
    /// and holds the trip's row lock only while it runs, never across a round trip to this node, so a node that
    /// vanishes mid-commit leaves no lock behind. The trip's `UPDATE … WHERE version = expected` (or, for a new
    /// trip, `INSERT … ON CONFLICT DO NOTHING`) decides; the audit line and the idempotency record are written
    /// from its returned row, so they exist exactly when the trip changed. A second node racing on the same trip
    /// waits for the row, then finds another version and changes nothing: `.conflict`; two racers creating the
    /// same trip, or reusing one idempotency key, meet a unique violation instead, which undoes the whole
    /// statement and is also `.conflict`. Not run again on a new connection when the connection breaks: the
    /// statement may have committed, so the caller answers 503 and the app's retry under its key replays it. A
    /// second active trip for the rider or the driver is refused by the unique indexes `trips_one_active_rider` /
    /// `trips_one_active_driver` (SQLSTATE 23505 naming one of them): the statement is undone and the answer is
    /// `.activeTripTaken`, naming the trip held.
    public func commit(_ commit: TripCommit) async throws -> CommitOutcome {
        let recordBytes = try HailJSON.encode(commit.record)
        let trip = commit.record.trip
        let event = commit.event
        let entry = commit.idempotency
        var parameters: [any PostgresEncodable] = [
            trip.id, commit.record.riderID, commit.record.driverID, trip.state.rawValue, trip.version,
            trip.state.isActive, recordBytes, event.at.timeIntervalSince1970, event.intent, event.actor,
            event.state.rawValue, entry?.scope.principal, entry?.scope.route, entry?.scope.key, entry?.response.status,
            entry?.response.body, entry?.response.requestFingerprint, entry?.response.createdAt.timeIntervalSince1970,
            event.detail,
        ]
        let sql: String
        if let expected = commit.expectedVersion {
            parameters.append(expected)
            sql = Self.updateSQL
        } else {
            sql = Self.insertSQL
        }
        let sent = parameters
        return try await pool.runOnce { connection in
            do {
                let changed = try connection.query(sql, sent).first.map { try $0.int(0) } ?? 0
                return changed == 1 ? CommitOutcome.committed : .conflict
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

    /// The audit line and idempotency record, written from the trip row a commit's first step returned.
    private static let followers = """
        , event AS (
            INSERT INTO trip_events (trip_id, version, intent, actor, state, at, detail)
            SELECT id, $5::bigint, $9::text, $10::text, $11::text, $8::float8, $19::text FROM changed
        ), kept AS (
            INSERT INTO idempotency (principal, route, key, status, body, fingerprint, created_at)
            SELECT $12::text, $13::text, $14::text, $15::integer, $16::bytea, $17::bytea, $18::float8 FROM changed
            WHERE $12::text IS NOT NULL
        )
        SELECT count(*) FROM changed
        """

    static let insertSQL =
        """
        WITH changed AS (
            INSERT INTO trips (id, rider_id, driver_id, state, version, active, record, updated_at)
            VALUES ($1::text, $2::text, $3::text, $4::text, $5::bigint, $6::boolean, $7::bytea, $8::float8)
            ON CONFLICT (id) DO NOTHING
            RETURNING id
        )
        """ + followers

    static let updateSQL =
        """
        WITH changed AS (
            UPDATE trips SET driver_id = $3::text, state = $4::text, version = $5::bigint, active = $6::boolean,
                record = $7::bytea, updated_at = $8::float8
            WHERE id = $1::text AND version = $20::bigint AND rider_id = $2::text
            RETURNING id
        )
        """ + followers

    /// The audit log, oldest first.
    public func events(tripID: String) async throws -> [TripEventRecord] {
        try await pool.run { connection in
            try connection.query(
                """
                SELECT trip_id, version, intent, actor, state, at, detail FROM trip_events WHERE trip_id = $1
                ORDER BY version
                """,
                [tripID]
            ).map { row in
                TripEventRecord(
                    tripID: try row.string(0), version: try row.int(1), intent: try row.string(2),
                    actor: try row.string(3), state: TripState(rawValue: try row.string(4)) ?? .searching,
                    at: Date(timeIntervalSince1970: try row.double(5)), detail: try row.optionalString(6))
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
