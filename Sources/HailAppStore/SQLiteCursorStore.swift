import HailRider
import HailStorage

/// The rider's cursor in SQLite through HailStorage, `synchronous=FULL`: a saved cursor survives a kill.
///
/// It lives in HailAppStore because HailRider may not import HailStorage; an iOS app links this module
/// with the rider core.
public struct SQLiteCursorStore: CursorStore {
    static let migrations: [SQLiteMigration] = [
        """
        CREATE TABLE rider_cursor (
            trip_id TEXT PRIMARY KEY NOT NULL,
            seq INTEGER NOT NULL
        ) STRICT;
        """
    ]

    private let database: SQLiteDatabase

    private init(database: SQLiteDatabase) { self.database = database }

    /// Opens (and creates when missing) the store at `path`.
    public static func open(path: String) async throws -> SQLiteCursorStore {
        SQLiteCursorStore(database: try await SQLiteDatabase.open(.file(path), migrations: migrations))
    }

    /// The stored cursor of `tripID`, or nil.
    public func load(tripID: String) async throws -> Int64? {
        try await database.read { connection in
            try connection.firstRow("SELECT seq FROM rider_cursor WHERE trip_id = ?", tripID)?.value(0, as: Int64.self)
        }
    }

    /// Stores `seq` for `tripID`, durably, never lowering a stored one.
    public func save(_ seq: Int64, tripID: String) async throws {
        // Never lower: a late writer must not move a stored cursor backwards.
        _ = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO rider_cursor (trip_id, seq) VALUES (?, ?)
                ON CONFLICT (trip_id) DO UPDATE SET seq = max(seq, excluded.seq)
                """, tripID, seq)
        }
    }

    /// Closes the database.
    public func close() async { try? await database.close() }
}
