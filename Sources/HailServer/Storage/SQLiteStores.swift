import Foundation
import HailCore
import HailProtocol
import HailStorage

/// The embedded stores on one SQLite file in WAL mode: trips, their audit log, idempotency records and
/// location history. Every call runs on the database's own thread, never on the network loop.
public struct SQLiteTripStores: Sendable {
    /// The schema, one migration per step; never edit a shipped step, append a new one.
    public static let migrations: [SQLiteMigration] = [
        """
        CREATE TABLE trips (
            id TEXT PRIMARY KEY,
            rider_id TEXT NOT NULL,
            driver_id TEXT,
            state TEXT NOT NULL,
            version INTEGER NOT NULL,
            active INTEGER NOT NULL,
            record BLOB NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX trips_active_rider ON trips(rider_id) WHERE active = 1;
        CREATE INDEX trips_active_driver ON trips(driver_id) WHERE active = 1;
        CREATE TABLE trip_events (
            trip_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            intent TEXT NOT NULL,
            actor TEXT NOT NULL,
            state TEXT NOT NULL,
            at REAL NOT NULL,
            PRIMARY KEY (trip_id, version)
        );
        CREATE TABLE idempotency (
            principal TEXT NOT NULL,
            route TEXT NOT NULL,
            key TEXT NOT NULL,
            status INTEGER NOT NULL,
            body BLOB NOT NULL,
            fingerprint BLOB NOT NULL,
            created_at REAL NOT NULL,
            PRIMARY KEY (principal, route, key)
        );
        CREATE TABLE location_history (
            trip_id TEXT NOT NULL,
            t REAL NOT NULL,
            received_at REAL NOT NULL,
            lat REAL NOT NULL,
            lng REAL NOT NULL,
            backlog INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX location_history_trip ON location_history(trip_id, t);
        """,
        """
        CREATE TABLE push_devices (
            principal TEXT PRIMARY KEY,
            token TEXT NOT NULL UNIQUE,
            environment TEXT NOT NULL,
            bundle_id TEXT,
            updated_at REAL NOT NULL
        );
        CREATE TABLE live_activity_tokens (
            trip_id TEXT PRIMARY KEY,
            rider_id TEXT NOT NULL,
            token TEXT NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX live_activity_tokens_token ON live_activity_tokens(token);
        """,
        """
        ALTER TABLE location_history ADD COLUMN heading REAL;
        ALTER TABLE location_history ADD COLUMN speed REAL;
        """,
        SQLiteMigration(ActiveTripMigration.sqlite),
        // The outbox of after-commit work: a change is published (watchers told, the driver's record and dispatch
        // brought up to date) up to `published_version`; the index holds only the trips still owed some.
        """
        ALTER TABLE trips ADD COLUMN published_version INTEGER NOT NULL DEFAULT 0;
        UPDATE trips SET published_version = version;
        CREATE INDEX trips_unpublished ON trips(updated_at) WHERE published_version < version;
        """,
        // What an audit line's intent does not say (an unverified arrival or start), apart from its name.
        """
        ALTER TABLE trip_events ADD COLUMN detail TEXT;
        """,
        // The fix where the car stood, stored with a trip's start: where the fare's path begins (`ChargedFixes`).
        """
        ALTER TABLE location_history ADD COLUMN standing INTEGER NOT NULL DEFAULT 0;
        """,
    ]

    /// The trip store.
    public let trips: SQLiteTripStore
    /// The location history store.
    public let history: SQLiteLocationHistoryStore

    /// Opens (creating and migrating) the database at `path`. A database holding a rider or a driver on two trips
    /// under way, which no legal change can part, is not opened: the error names the trips (see docs/DEPLOY.md).
    public static func open(path: String) async throws -> SQLiteTripStores {
        let database: SQLiteDatabase
        do {
            database = try await SQLiteDatabase.open(.file(path), migrations: migrations)
        } catch let error as SQLiteError
            where error.uniqueColumns != nil && error.sql?.contains("trips_one_active") == true
        {
            throw try ActiveTripMigration.sqliteRefusal(path: path, cause: error)
        }
        // History group-commits on the trips' writer rather than a second connection: see HistoryGroupCommit.
        return SQLiteTripStores(
            trips: SQLiteTripStore(database: database), history: SQLiteLocationHistoryStore(database: database))
    }
}

/// Trips, audit log and idempotency records in SQLite.
public struct SQLiteTripStore: TripStore {
    let database: SQLiteDatabase

    private struct Rollback: Error {}

    /// The trip with `id`.
    public func record(id: String) async throws -> TripRecord? {
        try await database.read { connection in
            try connection.firstRow("SELECT record FROM trips WHERE id = ?", id).map(Self.decode)
        }
    }

    /// The rider's active trip.
    public func activeRecord(riderID: String) async throws -> TripRecord? {
        try await database.read { connection in
            try connection.firstRow(
                "SELECT record FROM trips WHERE rider_id = ? AND active = 1 ORDER BY id LIMIT 1", riderID
            )
            .map(Self.decode)
        }
    }

    /// The driver's active trip.
    public func activeRecord(driverID: String) async throws -> TripRecord? {
        try await database.read { connection in
            try connection.firstRow(
                "SELECT record FROM trips WHERE driver_id = ? AND active = 1 ORDER BY id LIMIT 1", driverID
            )
            .map(Self.decode)
        }
    }

    /// Every active trip.
    public func activeRecords() async throws -> [TripRecord] {
        try await database.read { connection in
            try connection.query("SELECT record FROM trips WHERE active = 1 ORDER BY id").map(Self.decode)
        }
    }

    /// Applies the commit in one immediate transaction if the stored version matches. A second active trip for the
    /// rider or the driver fails the unique indexes `trips_one_active_rider` / `trips_one_active_driver`, which
    /// rolls everything back (trip, audit line, idempotency record) and answers `.activeTripTaken`.
    public func commit(_ commit: TripCommit) async throws -> CommitOutcome {
        let recordBytes = Array(try HailJSON.encode(commit.record))
        return try await database.write { connection in
            do {
                return try connection.transaction {
                    let stored = try connection.firstRow(
                        "SELECT version FROM trips WHERE id = ?", commit.record.trip.id)
                    let storedVersion: Int? = try stored.map { try $0.value(0) }
                    guard storedVersion == commit.expectedVersion else { return CommitOutcome.conflict }
                    let trip = commit.record.trip
                    try connection.run(
                        """
                        INSERT INTO trips (id, rider_id, driver_id, state, version, active, record, updated_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT(id) DO UPDATE SET driver_id = excluded.driver_id, state = excluded.state,
                            version = excluded.version, active = excluded.active, record = excluded.record,
                            updated_at = excluded.updated_at
                        """,
                        trip.id, commit.record.riderID, commit.record.driverID, trip.state.rawValue, trip.version,
                        trip.state.isActive, recordBytes, commit.event.at.timeIntervalSince1970)
                    let event = commit.event
                    try connection.run(
                        """
                        INSERT INTO trip_events (trip_id, version, intent, actor, state, at, detail)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                        event.tripID, event.version, event.intent, event.actor, event.state.rawValue,
                        event.at.timeIntervalSince1970, event.detail)
                    if let entry = commit.idempotency {
                        let existing = try connection.firstRow(
                            "SELECT 1 FROM idempotency WHERE principal = ? AND route = ? AND key = ?",
                            entry.scope.principal, entry.scope.route, entry.scope.key)
                        // Another request with this key won the race: undo everything, let the caller replay.
                        guard existing == nil else { throw Rollback() }
                        try connection.run(
                            """
                            INSERT INTO idempotency (principal, route, key, status, body, fingerprint, created_at)
                            VALUES (?, ?, ?, ?, ?, ?, ?)
                            """,
                            entry.scope.principal, entry.scope.route, entry.scope.key, entry.response.status,
                            Array(entry.response.body), Array(entry.response.requestFingerprint),
                            entry.response.createdAt.timeIntervalSince1970)
                    }
                    return CommitOutcome.committed
                }
            } catch is Rollback {
                return .conflict
            } catch let error as SQLiteError {
                // Only the two active-trip indexes become 409s; any other constraint is a bug and stays an error.
                let party: ActiveTripConflict.Party
                switch error.uniqueColumns {
                case ["trips.rider_id"]?: party = .rider
                case ["trips.driver_id"]?: party = .driver
                default: throw error
                }
                let record = commit.record
                let subject = party == .rider ? record.riderID : record.driverID ?? ""
                // The transaction rolled back on this writer, the only one: what it reads now is what refused it.
                let held = try connection.firstRow(
                    "SELECT id FROM trips WHERE \(party.rawValue)_id = ? AND active = 1 AND id <> ? ORDER BY id LIMIT 1",
                    subject, record.trip.id)
                guard let held else { return .conflict }
                return .activeTripTaken(ActiveTripConflict(party: party, subject: subject, tripID: try held.value(0)))
            }
        }
    }

    /// The audit log, oldest first.
    public func events(tripID: String) async throws -> [TripEventRecord] {
        try await database.read { connection in
            try connection.query(
                """
                SELECT trip_id, version, intent, actor, state, at, detail FROM trip_events WHERE trip_id = ?
                ORDER BY version
                """,
                tripID
            ).map { row in
                TripEventRecord(
                    tripID: try row.value(0), version: try row.value(1), intent: try row.value(2),
                    actor: try row.value(3),
                    state: TripState(rawValue: try row.value(4)) ?? .searching,
                    at: Date(timeIntervalSince1970: try row.value(5)), detail: try row.value(6, as: String?.self))
            }
        }
    }

    /// The stored answer for a key.
    public func storedResponse(for scope: IdempotencyScope) async throws -> StoredResponse? {
        try await database.read { connection in
            try connection.firstRow(
                "SELECT status, body, fingerprint, created_at FROM idempotency WHERE principal = ? AND route = ? AND key = ?",
                scope.principal, scope.route, scope.key
            ).map { row in
                StoredResponse(
                    status: try row.value(0), body: Data(try row.value(1, as: [UInt8].self)),
                    requestFingerprint: Data(try row.value(2, as: [UInt8].self)),
                    createdAt: Date(timeIntervalSince1970: try row.value(3)))
            }
        }
    }

    private static func decode(_ row: SQLiteRow) throws -> TripRecord {
        try HailJSON.decode(TripRecord.self, from: Data(try row.value(0, as: [UInt8].self)))
    }
}

extension SQLiteTripStore {
    /// Stores the principal's one device in one transaction; another principal with the same token loses it.
    public func saveDevice(_ device: DeviceTokenRecord) async throws {
        try await database.write { connection in
            try connection.transaction {
                _ = try connection.run(
                    "DELETE FROM push_devices WHERE token = ? AND principal <> ?", device.token, device.principal)
                _ = try connection.run(
                    """
                    INSERT INTO push_devices (principal, token, environment, bundle_id, updated_at)
                    VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(principal) DO UPDATE SET token = excluded.token, environment = excluded.environment,
                        bundle_id = excluded.bundle_id, updated_at = excluded.updated_at
                    """,
                    device.principal, device.token, device.environment.rawValue, device.bundleID,
                    device.updatedAt.timeIntervalSince1970)
            }
        }
    }

    /// The principal's device.
    public func device(principal: String) async throws -> DeviceTokenRecord? {
        try await database.read { connection in
            try connection.firstRow(
                "SELECT principal, token, environment, bundle_id, updated_at FROM push_devices WHERE principal = ?",
                principal
            ).map { row in
                DeviceTokenRecord(
                    principal: try row.value(0), token: try row.value(1),
                    environment: PushEnvironment(rawValue: try row.value(2)) ?? .production,
                    bundleID: try row.value(3), updatedAt: Date(timeIntervalSince1970: try row.value(4)))
            }
        }
    }

    /// Forgets the principal's device.
    public func removeDevice(principal: String) async throws {
        try await database.write { connection in
            _ = try connection.run("DELETE FROM push_devices WHERE principal = ?", principal)
        }
    }

    /// Stores the trip's Live Activity token.
    public func saveLiveActivity(_ activity: LiveActivityTokenRecord) async throws {
        try await database.write { connection in
            _ = try connection.run(
                """
                INSERT INTO live_activity_tokens (trip_id, rider_id, token, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(trip_id) DO UPDATE SET rider_id = excluded.rider_id, token = excluded.token,
                    updated_at = excluded.updated_at
                """,
                activity.tripID, activity.riderID, activity.token, activity.updatedAt.timeIntervalSince1970)
        }
    }

    /// The trip's Live Activity token.
    public func liveActivity(tripID: String) async throws -> LiveActivityTokenRecord? {
        try await database.read { connection in
            try connection.firstRow(
                "SELECT trip_id, rider_id, token, updated_at FROM live_activity_tokens WHERE trip_id = ?", tripID
            ).map { row in
                LiveActivityTokenRecord(
                    tripID: try row.value(0), riderID: try row.value(1), token: try row.value(2),
                    updatedAt: Date(timeIntervalSince1970: try row.value(3)))
            }
        }
    }

    /// Forgets the trip's Live Activity token.
    public func removeLiveActivity(tripID: String) async throws {
        try await database.write { connection in
            _ = try connection.run("DELETE FROM live_activity_tokens WHERE trip_id = ?", tripID)
        }
    }

    /// Forgets `token` wherever it is.
    public func removePushToken(_ token: String) async throws {
        try await database.write { connection in
            try connection.transaction {
                _ = try connection.run("DELETE FROM push_devices WHERE token = ?", token)
                _ = try connection.run("DELETE FROM live_activity_tokens WHERE token = ?", token)
            }
        }
    }
}

/// Location history in SQLite, written by group commit: concurrent appends share one transaction.
public struct SQLiteLocationHistoryStore: UnderWayHistoryStore {
    let database: SQLiteDatabase
    private let groupCommit: HistoryGroupCommit

    /// A history on `database`, which must already be migrated with `SQLiteTripStores.migrations`.
    public init(database: SQLiteDatabase) {
        self.database = database
        self.groupCommit = HistoryGroupCommit(database: database)
    }

    /// Enqueues the points for the next group commit and returns at once; `whenCommitted` runs once they are
    /// durable, or with the error when none of them was written. A point whose device time the trip already
    /// has is a resend (a batch that went unacknowledged before a reconnect comes back as backlog) and is ignored.
    public func append(
        tripID: String, points: [HistoryPoint], whenCommitted: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        groupCommit.append(tripID: tripID, points: points, whenCommitted: whenCommitted)
    }

    /// Enqueues the points for the next group commit, kept only if the trip is under way with `driverID` as the group
    /// is written (the trips' commits run on the same writer thread, so the group sees every one before it).
    public func append(
        tripID: String, underWayBy driverID: String, points: [HistoryPoint],
        whenCommitted: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        groupCommit.append(tripID: tripID, underWayBy: driverID, points: points, whenCommitted: whenCommitted)
    }

    /// Appends points through the same group commit and returns once they are durable; resends are ignored.
    public func append(tripID: String, points: [HistoryPoint]) async throws {
        try await groupCommit.append(tripID: tripID, points: points)
    }

    /// How many groups and appends the group commit has written, for tests and benchmarks.
    public var statistics: HistoryGroupCommit.Statistics { groupCommit.statistics }

    /// Returns once every append started before the call has committed or failed.
    public func appendsBefore() async { await groupCommit.appendsBefore() }

    /// The trip's points in device-time order, every append made before the call included.
    public func history(tripID: String) async throws -> [HistoryPoint] {
        await groupCommit.appendsBefore()
        return try await database.read { connection in
            try connection.query(
                """
                SELECT t, received_at, lat, lng, backlog, heading, speed, standing FROM location_history
                WHERE trip_id = ? ORDER BY t, rowid
                """,
                tripID
            ).map { row in
                HistoryPoint(
                    coordinate: Coordinate(lat: try row.value(2), lng: try row.value(3)),
                    t: Date(timeIntervalSince1970: try row.value(0)),
                    receivedAt: Date(timeIntervalSince1970: try row.value(1)), backlog: try row.value(4),
                    heading: try row.value(5), speed: try row.value(6), standing: try row.value(7))
            }
        }
    }
}
