import Foundation
import HailDriver
import HailStorage

/// The driver's `OutboxStore` in SQLite: one row holding the saved state, committed (synchronous=FULL)
/// before `save` returns, so a tap survives a kill the moment the screen shows it.
///
/// It lives in HailAppStore because HailDriver may not import HailStorage; an iOS app links this module
/// with the driver core.
public actor SQLiteOutboxStore: OutboxStore {
    private let database: SQLiteDatabase

    private static let migrations: [SQLiteMigration] = [
        "CREATE TABLE driver_state (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL)"
    ]

    /// Opens (or creates) the store at `path`.
    public init(path: String) async throws {
        database = try await SQLiteDatabase.open(.file(path), migrations: Self.migrations, separateReader: false)
    }

    /// The saved state, or nil on a first launch.
    public func load() async throws -> DriverSavedState? {
        let text = try await database.read { connection -> String? in
            try connection.firstRow("SELECT json FROM driver_state WHERE id = 1")?.value(0, as: String.self)
        }
        guard let text else { return nil }
        return try JSONDecoder().decode(DriverSavedState.self, from: Data(text.utf8))
    }

    /// Replaces the saved state in one transaction.
    public func save(_ state: DriverSavedState) async throws {
        // Plain JSONEncoder dates are exact Doubles: a restored fix keeps its device time to the nanosecond.
        let text = String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
        _ = try await database.write { connection in
            try connection.run(
                "INSERT INTO driver_state (id, json) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json",
                text)
        }
    }
}
