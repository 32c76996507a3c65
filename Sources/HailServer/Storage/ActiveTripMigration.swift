import Foundation
import HailStorage

/// The schema step that makes "one active trip per rider and per driver" the database's rule: a unique partial
/// index on each one's active trip, in place of the plain indexes before it.
///
/// A database written before it may already hold duplicates (requests raced past the old read-then-write check).
/// The step parts them first, in the same transaction, with changes the trip rules allow and an audit line each
/// (actor `system`): per rider, the trip furthest along is kept (under way, then at the pickup, then assigned, then
/// searching; then the earliest requested) and every other one not yet under way is `cancelled`
/// (`duplicateCancelled`); then per driver, the trip furthest along is kept and every other one goes back to
/// `searching` without its driver when the driver was on the way to it, or is `cancelled` when they were at its
/// pickup (`duplicateDriverReleased`, `duplicateCancelled`). Only two trips under way (`onTrip`) for one rider or one
/// driver have no legal change that parts them: then the step fails, naming them, and nothing is changed.
public enum ActiveTripMigration {
    /// The unique index on each rider's active trip.
    public static let riderIndex = "trips_one_active_rider"
    /// The unique index on each driver's active trip.
    public static let driverIndex = "trips_one_active_driver"

    /// The SQLite step.
    public static let sqlite = """
        CREATE TEMP TABLE active_trip_ranks AS
        SELECT t.id, t.rider_id, t.driver_id, t.state,
            CASE t.state WHEN 'onTrip' THEN 0 WHEN 'driverArrived' THEN 1 WHEN 'driverAssigned' THEN 2 ELSE 3 END
                AS progress,
            COALESCE((SELECT MIN(e.at) FROM trip_events e WHERE e.trip_id = t.id), t.updated_at) AS requested_at
        FROM trips t WHERE t.active = 1;
        CREATE TEMP TABLE active_trip_fixes AS
        SELECT id, 'cancelled' AS state FROM (
            SELECT id, state, ROW_NUMBER() OVER (PARTITION BY rider_id ORDER BY progress, requested_at, id) AS rank
            FROM active_trip_ranks)
        WHERE rank > 1 AND state <> 'onTrip';
        INSERT INTO active_trip_fixes (id, state)
        SELECT id, CASE state WHEN 'driverAssigned' THEN 'searching' ELSE 'cancelled' END FROM (
            SELECT id, state, ROW_NUMBER() OVER (PARTITION BY driver_id ORDER BY progress, requested_at, id) AS rank
            FROM active_trip_ranks
            WHERE driver_id IS NOT NULL AND id NOT IN (SELECT id FROM active_trip_fixes))
        WHERE rank > 1 AND state IN ('driverAssigned', 'driverArrived');
        INSERT INTO trip_events (trip_id, version, intent, actor, state, at)
        SELECT t.id, t.version + 1,
            CASE f.state WHEN 'searching' THEN 'duplicateDriverReleased' ELSE 'duplicateCancelled' END, 'system',
            f.state, (julianday('now') - 2440587.5) * 86400.0
        FROM active_trip_fixes f JOIN trips t ON t.id = f.id;
        UPDATE trips SET state = f.state, version = trips.version + 1, active = (f.state = 'searching'),
            driver_id = CASE f.state WHEN 'searching' THEN NULL ELSE trips.driver_id END,
            record = CAST(CASE f.state
                WHEN 'searching' THEN json_remove(
                    json_set(CAST(trips.record AS TEXT), '$.trip.state', f.state, '$.trip.version', trips.version + 1),
                    '$.trip.driver', '$.trip.etaSeconds', '$.trip.driverLocation')
                ELSE json_remove(
                    json_set(CAST(trips.record AS TEXT), '$.trip.state', f.state, '$.trip.version', trips.version + 1),
                    '$.trip.etaSeconds')
                END AS BLOB),
            updated_at = (julianday('now') - 2440587.5) * 86400.0
        FROM active_trip_fixes f WHERE trips.id = f.id;
        DROP TABLE active_trip_ranks;
        DROP TABLE active_trip_fixes;
        DROP INDEX trips_active_rider;
        DROP INDEX trips_active_driver;
        CREATE UNIQUE INDEX \(riderIndex) ON trips(rider_id) WHERE active = 1;
        CREATE UNIQUE INDEX \(driverIndex) ON trips(driver_id) WHERE active = 1 AND driver_id IS NOT NULL;
        """

    /// Who holds two trips under way, one line each (`rider r-1: t-1, t-2`): what the step cannot part, in SQLite.
    public static let stuckQuery = """
        SELECT 'rider ' || rider_id || ': ' || group_concat(id, ', ') FROM
            (SELECT rider_id, id FROM trips WHERE state = 'onTrip' ORDER BY id) GROUP BY rider_id HAVING COUNT(*) > 1
        UNION ALL
        SELECT 'driver ' || driver_id || ': ' || group_concat(id, ', ') FROM
            (SELECT driver_id, id FROM trips WHERE state = 'onTrip' AND driver_id IS NOT NULL ORDER BY id)
            GROUP BY driver_id HAVING COUNT(*) > 1
        """

    /// `stuckQuery` in PostgreSQL's words, its column named `line`.
    public static let postgresStuckQuery = """
        SELECT 'rider ' || rider_id || ': ' || string_agg(id, ', ' ORDER BY id) AS line FROM trips
            WHERE state = 'onTrip' GROUP BY rider_id HAVING COUNT(*) > 1
        UNION ALL
        SELECT 'driver ' || driver_id || ': ' || string_agg(id, ', ' ORDER BY id) FROM trips
            WHERE state = 'onTrip' AND driver_id IS NOT NULL GROUP BY driver_id HAVING COUNT(*) > 1
        """

    /// What the operator is told when the step cannot run: who is on two trips at once, and what to do (no single
    /// quote in it: PostgreSQL's step quotes it, with `%` for the list).
    public static func refusal(stuck: [String]) -> String {
        """
        the schema step that allows one active trip per rider and per driver cannot run: \
        \(stuck.joined(separator: "; ")) \
        (each is under way twice, and no legal change parts them); end all but one of each by hand as \
        docs/DEPLOY.md ("One active trip per rider and per driver") says, then start again. Nothing was changed.
        """
    }

    /// The error for a SQLite file whose step failed on the new indexes: the trips it could not part, named.
    static func sqliteRefusal(path: String, cause: SQLiteError) throws -> ActiveTripMigrationError {
        let connection = try SQLiteConnection.inspecting(.file(path))
        defer { try? connection.close() }
        let stuck = try connection.query(stuckQuery).map { try $0.value(0, as: String.self) }
        return ActiveTripMigrationError(message: stuck.isEmpty ? cause.description : refusal(stuck: stuck))
    }
}
