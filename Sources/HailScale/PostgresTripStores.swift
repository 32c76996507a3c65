import Foundation
import HailServer

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
        // One active trip per rider and per driver; duplicates are parted first (see `ActiveTripMigration`).
        """
        DO $$
        DECLARE stuck TEXT;
        BEGIN
            SELECT string_agg(line, '; ') INTO stuck FROM (\(ActiveTripMigration.postgresStuckQuery)) lines;
            IF stuck IS NOT NULL THEN
                RAISE EXCEPTION '\(ActiveTripMigration.refusal(stuck: ["%"]))', stuck;
            END IF;
        END $$;
        CREATE TEMP TABLE active_trip_ranks ON COMMIT DROP AS
        SELECT t.id, t.rider_id, t.driver_id, t.state,
            CASE t.state WHEN 'onTrip' THEN 0 WHEN 'driverArrived' THEN 1 WHEN 'driverAssigned' THEN 2 ELSE 3 END
                AS progress,
            COALESCE((SELECT MIN(e.at) FROM trip_events e WHERE e.trip_id = t.id), t.updated_at) AS requested_at
        FROM trips t WHERE t.active;
        CREATE TEMP TABLE active_trip_fixes ON COMMIT DROP AS
        SELECT id, 'cancelled'::text AS state FROM (
            SELECT id, state, row_number() OVER (PARTITION BY rider_id ORDER BY progress, requested_at, id) AS rank
            FROM active_trip_ranks) ranked
        WHERE rank > 1 AND state <> 'onTrip';
        INSERT INTO active_trip_fixes (id, state)
        SELECT id, CASE state WHEN 'driverAssigned' THEN 'searching' ELSE 'cancelled' END FROM (
            SELECT id, state, row_number() OVER (PARTITION BY driver_id ORDER BY progress, requested_at, id) AS rank
            FROM active_trip_ranks
            WHERE driver_id IS NOT NULL AND id NOT IN (SELECT id FROM active_trip_fixes)) ranked
        WHERE rank > 1 AND state IN ('driverAssigned', 'driverArrived');
        INSERT INTO trip_events (trip_id, version, intent, actor, state, at)
        SELECT t.id, t.version + 1,
            CASE f.state WHEN 'searching' THEN 'duplicateDriverReleased' ELSE 'duplicateCancelled' END, 'system',
            f.state, extract(epoch FROM clock_timestamp())
        FROM active_trip_fixes f JOIN trips t ON t.id = f.id;
        UPDATE trips t SET state = f.state, version = t.version + 1, active = (f.state = 'searching'),
            driver_id = CASE f.state WHEN 'searching' THEN NULL ELSE t.driver_id END,
            record = convert_to((CASE f.state
                WHEN 'searching' THEN jsonb_set(jsonb_set(convert_from(t.record, 'UTF8')::jsonb,
                    '{trip,state}', to_jsonb(f.state)), '{trip,version}', to_jsonb(t.version + 1))
                    #- '{trip,driver}' #- '{trip,etaSeconds}' #- '{trip,driverLocation}'
                ELSE jsonb_set(jsonb_set(convert_from(t.record, 'UTF8')::jsonb,
                    '{trip,state}', to_jsonb(f.state)), '{trip,version}', to_jsonb(t.version + 1))
                    #- '{trip,etaSeconds}'
                END)::text, 'UTF8'),
            updated_at = extract(epoch FROM clock_timestamp())
        FROM active_trip_fixes f WHERE t.id = f.id;
        DROP INDEX trips_active_rider;
        DROP INDEX trips_active_driver;
        CREATE UNIQUE INDEX \(ActiveTripMigration.riderIndex) ON trips(rider_id) WHERE active;
        CREATE UNIQUE INDEX \(ActiveTripMigration.driverIndex) ON trips(driver_id) WHERE active AND driver_id IS NOT NULL;
        """,
        // The outbox of after-commit work: a change is published (watchers told, the driver's record and dispatch
        // brought up to date) up to `published_version`; the index holds only the trips still owed some.
        """
        ALTER TABLE trips ADD COLUMN published_version BIGINT NOT NULL DEFAULT 0;
        UPDATE trips SET published_version = version;
        CREATE INDEX trips_unpublished ON trips(updated_at) WHERE published_version < version;
        """,
        // Which node redelivers an owed change, until when (PostgreSQL's clock, epoch seconds): one at a time.
        """
        ALTER TABLE trips ADD COLUMN redelivery_claimed_until DOUBLE PRECISION NOT NULL DEFAULT 0;
        """,
        // What an audit line's intent does not say (an unverified arrival or start), apart from its name.
        """
        ALTER TABLE trip_events ADD COLUMN detail TEXT;
        """,
        // The fix where the car stood, stored with a trip's start: where the fare's path begins (`ChargedFixes`).
        """
        ALTER TABLE location_history ADD COLUMN standing BOOLEAN NOT NULL DEFAULT FALSE;
        """,
    ]

    /// The trip store.
    public let trips: PostgresTripStore
    /// The location history store.
    public let history: PostgresLocationHistoryStore
    /// The connections both use.
    public let pool: PostgresPool

    /// Connects to `url`, migrating `schema` (tests use a fresh one each), with `connections` threads, each
    /// wait bounded by `timeouts`.
    public static func open(
        url: String, schema: String = "public", connections: Int = 4, timeouts: PostgresTimeouts = PostgresTimeouts()
    ) async throws -> PostgresTripStores {
        let pool = try await PostgresPool.connect(
            url: url, schema: schema, size: connections, migrations: migrations, timeouts: timeouts)
        return PostgresTripStores(
            trips: PostgresTripStore(pool: pool), history: PostgresLocationHistoryStore(pool: pool), pool: pool)
    }

    /// Closes the connections.
    public func close() { pool.close() }
}
