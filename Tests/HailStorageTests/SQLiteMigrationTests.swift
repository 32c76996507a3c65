import HailStorage
import Testing

@Suite struct SQLiteMigrationTests {
    let directory: TemporaryDirectory
    let path: String

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.database()
    }

    /// Each step logs itself, so the log shows which steps ran and in what order.
    private let steps: [SQLiteMigration] = [
        "CREATE TABLE log (step INTEGER NOT NULL); INSERT INTO log VALUES (1);",
        "CREATE TABLE trip (id TEXT PRIMARY KEY, version INTEGER NOT NULL); INSERT INTO log VALUES (2);",
        SQLiteMigration("ALTER TABLE trip ADD COLUMN fare INTEGER; INSERT INTO log VALUES (3);"),
    ]

    private func log(_ connection: SQLiteConnection) throws -> [Int] {
        try connection.query("SELECT step FROM log ORDER BY rowid").map { try $0.value(0, as: Int.self) }
    }

    @Test func migrationsRunOnceInOrder() throws {
        let first = try SQLiteConnection(.file(path), migrations: steps)
        #expect(try log(first) == [1, 2, 3])
        #expect(try first.userVersion() == 3)
        try first.run("INSERT INTO trip (id, version, fare) VALUES ('t1', 1, 1250)")
        try first.close()

        let again = try SQLiteConnection(.file(path), migrations: steps)
        #expect(try log(again) == [1, 2, 3])
        #expect(try again.query("SELECT * FROM trip").count == 1)
    }

    @Test func onlyNewStepsRunOnUpgrade() throws {
        try SQLiteConnection(.file(path), migrations: Array(steps.prefix(1))).close()
        let upgraded = try SQLiteConnection(.file(path), migrations: steps)
        #expect(try log(upgraded) == [1, 2, 3])
        #expect(try upgraded.userVersion() == 3)
    }

    @Test func failingStepRollsBackTheWholeUpgrade() throws {
        try SQLiteConnection(.file(path), migrations: Array(steps.prefix(1))).close()
        let broken = Array(steps.prefix(2)) + ["INSERT INTO log VALUES (3); CREATE TABLE trip (oops);"]
        let error = try #require(throws: SQLiteError.self) { try SQLiteConnection(.file(path), migrations: broken) }
        #expect(error.message.contains("already exists"))

        let reopened = try SQLiteConnection(.file(path), migrations: Array(steps.prefix(1)))
        #expect(try reopened.userVersion() == 1)
        #expect(try log(reopened) == [1])
        #expect(try reopened.firstRow("SELECT name FROM sqlite_master WHERE name = 'trip'") == nil)
    }

    @Test func newerDatabaseIsRefused() throws {
        try SQLiteConnection(.file(path), migrations: steps).close()
        let error = try #require(throws: SQLiteError.self) {
            try SQLiteConnection(.file(path), migrations: Array(steps.prefix(2)))
        }
        #expect(error.kind == .schemaTooNew)
        #expect(error.message.contains("schema version 3"))
        #expect(error.message.contains("only 2 migration"))
        #expect(error.message.contains(path))
        // The refusal changed nothing.
        let current = try SQLiteConnection(.file(path), migrations: steps)
        #expect(try log(current) == [1, 2, 3])
    }

    @Test func aToolInspectingAFileRunsNoMigrationAndRefusesNone() throws {
        let owner = try SQLiteConnection(.file(path), migrations: steps)
        try owner.run("INSERT INTO trip (id, version, fare) VALUES ('t1', 4, 1250)")
        try owner.close()
        // Written by code with three steps, read by a tool that knows none: as it stands.
        let inspector = try SQLiteConnection.inspecting(.file(path))
        #expect(try inspector.userVersion() == 3)
        #expect(try log(inspector) == [1, 2, 3])
        #expect(try inspector.firstRow("SELECT version FROM trip WHERE id = 't1'")?.value(0, as: Int.self) == 4)
        try inspector.close()
        // A file that has no schema yet is left without one.
        let empty = try SQLiteConnection.inspecting(.file(directory.database("empty.sqlite")))
        #expect(try empty.userVersion() == 0)
        #expect(try empty.firstRow("SELECT name FROM sqlite_master") == nil)
    }
}
