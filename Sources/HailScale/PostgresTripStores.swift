import Foundation

/// The scaled stores on one PostgreSQL database: trips, their audit log, idempotency records and location
/// history, shared by every node. Each call runs on a pool thread, never on the network loop.
public struct PostgresTripStores: Sendable {
    /// The schema, one migration per step; never edit a shipped step, append a new one.
    public static let migrations: [String] = [
        """
        CREATE TABLE trips (
            id TEXT PRIMARY KEY,
            rider_id TEXT NOT NULL,
            driver_id TEXT,
            state TEXT NOT NULL,
            version BIGINT NOT NULL,
            active BOOLEAN NOT NULL,
            record BYTEA NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL
        );
        CREATE INDEX trips_active_rider ON trips(rider_id) WHERE active;
        CREATE INDEX trips_active_driver ON trips(driver_id) WHERE active;
        CREATE TABLE trip_events (
            trip_id TEXT NOT NULL,
            version BIGINT NOT NULL,
            intent TEXT NOT NULL,
            actor TEXT NOT NULL,
            state TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (trip_id, version)
        );
        CREATE TABLE idempotency (
            principal TEXT NOT NULL,
            route TEXT NOT NULL,
            key TEXT NOT NULL,
            status INTEGER NOT NULL,
            body BYTEA NOT NULL,
            fingerprint BYTEA NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (principal, route, key)
        );
        CREATE TABLE location_history (
            seq BIGSERIAL PRIMARY KEY,
            trip_id TEXT NOT NULL,
            t DOUBLE PRECISION NOT NULL,
            received_at DOUBLE PRECISION NOT NULL,
            lat DOUBLE PRECISION NOT NULL,
            lng DOUBLE PRECISION NOT NULL,
            backlog BOOLEAN NOT NULL,
            UNIQUE (trip_id, t)
        );
        """,
        """
        CREATE TABLE push_devices (
            principal TEXT PRIMARY KEY,
            token TEXT NOT NULL UNIQUE,
            environment TEXT NOT NULL,
            bundle_id TEXT,
            updated_at DOUBLE PRECISION NOT NULL
        );
        CREATE TABLE live_activity_tokens (
            trip_id TEXT PRIMARY KEY,
            rider_id TEXT NOT NULL,
            token TEXT NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL
        );
        CREATE INDEX live_activity_tokens_token ON live_activity_tokens(token);
        """,
        """
        ALTER TABLE location_history ADD COLUMN heading DOUBLE PRECISION;
        ALTER TABLE location_history ADD COLUMN speed DOUBLE PRECISION;
        """,
        // The outbox of after-commit work: a change is published (watchers told, the driver's record and dispatch
        // brought up to date) up to `published_version`; the index holds only the trips still owed some.
        """
        ALTER TABLE trips ADD COLUMN published_version BIGINT NOT NULL DEFAULT 0;
        UPDATE trips SET published_version = version;
        CREATE INDEX trips_unpublished ON trips(updated_at) WHERE published_version < version;
        """,
    ]

    /// The trip store.
    public let trips: PostgresTripStore
    /// The location history store.
    public let history: PostgresLocationHistoryStore
    /// The connections both use.
    public let pool: PostgresPool

    /// Connects to `url`, migrating `schema` (tests use a fresh one each), with `connections` threads.
    public static func open(url: String, schema: String = "public", connections: Int = 4) async throws
        -> PostgresTripStores
    {
        let pool = try await PostgresPool.connect(url: url, schema: schema, size: connections, migrations: migrations)
        return PostgresTripStores(
            trips: PostgresTripStore(pool: pool), history: PostgresLocationHistoryStore(pool: pool), pool: pool)
    }

    /// Closes the connections.
    public func close() { pool.close() }
}
