import Foundation
import HailAppSeams
import HailCore
import HailStorage

/// The rider's cursor and ETA promises in SQLite through HailStorage, in WAL at `synchronous=NORMAL`.
///
/// The model saves the cursor before every position it shows, so this is on the phone's hot path: with `FULL`
/// each position cost an fsync, battery and flash for nothing. `NORMAL` keeps every save that returned through a
/// kill of the app (the WAL is in the OS's hands when the commit returns), the case this store exists for; a power
/// loss or an OS crash may roll back the last saves, and a cursor that went back only makes the server send a
/// position again (the model drops what it has seen; a promise that went back is held against the next estimate).
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
        """,
        """
        CREATE TABLE rider_eta_promise (
            trip_id TEXT NOT NULL,
            state TEXT NOT NULL,
            arrival REAL NOT NULL,
            PRIMARY KEY (trip_id, state)
        ) STRICT;
        """,
    ]

    private let database: SQLiteDatabase

    private init(database: SQLiteDatabase) { self.database = database }

    /// Opens (and creates when missing) the store at `path`.
    public static func open(path: String) async throws -> SQLiteCursorStore {
        SQLiteCursorStore(
            database: try await SQLiteDatabase.open(
                .file(path), configuration: SQLiteConfiguration(durability: .normal), migrations: migrations))
    }

    /// The stored cursor of `tripID`, or nil.
    public func load(tripID: String) async throws -> Int64? {
        try await database.read { connection in
            try connection.firstRow("SELECT seq FROM rider_cursor WHERE trip_id = ?", tripID)?.value(0, as: Int64.self)
        }
    }

    /// Stores `seq` for `tripID`, never lowering a stored one; once this returns the cursor survives a kill.
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

    /// The arrival last promised on `tripID` in `state`, or nil.
    public func loadPromise(tripID: String, state: TripState) async throws -> Date? {
        try await database.read { connection in
            try connection.firstRow(
                "SELECT arrival FROM rider_eta_promise WHERE trip_id = ? AND state = ?", tripID, state.rawValue
            )?.value(0, as: Double.self)
        }.map(Date.init(timeIntervalSince1970:))
    }

    /// Stores the promise of `tripID` in `state`, replacing the one before.
    public func savePromise(_ arrival: Date, tripID: String, state: TripState) async throws {
        _ = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO rider_eta_promise (trip_id, state, arrival) VALUES (?, ?, ?)
                ON CONFLICT (trip_id, state) DO UPDATE SET arrival = excluded.arrival
                """, tripID, state.rawValue, arrival.timeIntervalSince1970)
        }
    }

    /// Closes the database.
    public func close() async { try? await database.close() }
}
