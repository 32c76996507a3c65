import HailStorage
import Testing

@Suite struct SQLiteConnectionTests {
    let directory: TemporaryDirectory
    let connection: SQLiteConnection

    init() throws {
        directory = try TemporaryDirectory()
        connection = try SQLiteConnection(.file(directory.database()))
        try connection.execute(
            """
            CREATE TABLE box (id INTEGER PRIMARY KEY, value ANY);
            CREATE TABLE keyed (key TEXT PRIMARY KEY, body TEXT NOT NULL, UNIQUE (body));
            """)
    }

    private func roundTrip(_ value: (any SQLiteValueConvertible)?) throws -> SQLiteValue {
        try connection.run("DELETE FROM box")
        try connection.run("INSERT INTO box (id, value) VALUES (1, ?)", value)
        return try #require(try connection.firstRow("SELECT value FROM box WHERE id = 1")?[0])
    }

    @Test func everyBoundTypeRoundTrips() throws {
        #expect(try roundTrip(Int64.max) == .integer(.max))
        #expect(try roundTrip(Int64.min) == .integer(.min))
        #expect(try roundTrip(42) == .integer(42))
        #expect(try roundTrip(Int32.min) == .integer(Int64(Int32.min)))
        #expect(try roundTrip(-0.5) == .real(-0.5))
        #expect(try roundTrip(Double.greatestFiniteMagnitude) == .real(.greatestFiniteMagnitude))
        #expect(try roundTrip(Double.infinity) == .real(.infinity))
        #expect(try roundTrip(true) == .integer(1))
        #expect(try roundTrip(false) == .integer(0))
        #expect(try roundTrip(nil) == .null)
        #expect(try roundTrip(Optional<String>.none) == .null)
        #expect(try roundTrip(Optional("x")) == .text("x"))
        #expect(try roundTrip("") == .text(""))
        #expect(try roundTrip([UInt8]()) == .blob([]))
        #expect(try roundTrip(SQLiteValue.blob([1, 2])) == .blob([1, 2]))
    }

    @Test func textKeepsUnicodeAndEmbeddedNULs() throws {
        let samples = ["Zürich → Ōsaka 🚕", "e\u{301} vs é", "before\u{0}after", "\u{0}", "日本語のテキスト", "👩‍👩‍👧‍👦"]
        for sample in samples {
            #expect(try roundTrip(sample) == .text(sample))
            let row = try #require(try connection.firstRow("SELECT value, length(CAST(value AS BLOB)) FROM box"))
            #expect(try row.value(0, as: String.self) == sample)
            #expect(try row.value(1, as: Int.self) == sample.utf8.count)
        }
    }

    @Test func blobsKeepEveryByteIncludingNULs() throws {
        let bytes: [UInt8] = [0, 0, 255, 0, 1, 0x80, 0]
        #expect(try roundTrip(bytes) == .blob(bytes))
        let all = (0...255).map { UInt8($0) } + [0, 0]
        #expect(try roundTrip(all) == .blob(all))
        let row = try #require(try connection.firstRow("SELECT value, length(value), typeof(value) FROM box"))
        #expect(try row.value("value", as: [UInt8].self) == all)
        #expect(try row.value(1, as: Int.self) == 258)
        #expect(try row.value(2, as: String.self) == "blob")
        // An empty blob is a blob, not NULL.
        _ = try roundTrip([UInt8]())
        let empty = try #require(try connection.firstRow("SELECT value, typeof(value) FROM box"))
        #expect(try empty.value(0, as: [UInt8].self) == [])
        #expect(try empty.value(1, as: String.self) == "blob")
    }

    @Test func typedGettersReadByIndexAndName() throws {
        try connection.execute("CREATE TABLE typed (i INTEGER, r REAL, t TEXT, b BLOB, f INTEGER, n TEXT)")
        try connection.run("INSERT INTO typed VALUES (?, ?, ?, ?, ?, ?)", 7, 2.5, "seven", [UInt8]([7]), true, nil)
        let row = try #require(try connection.firstRow("SELECT * FROM typed"))
        #expect(row.columnNames == ["i", "r", "t", "b", "f", "n"])
        #expect(try row.value(0, as: Int64.self) == 7)
        #expect(try row.value("i", as: Int.self) == 7)
        #expect(try row.value("I", as: Int.self) == 7)
        #expect(try row.value("i", as: Double.self) == 7)
        #expect(try row.value("r", as: Double.self) == 2.5)
        #expect(try row.value("t", as: String.self) == "seven")
        #expect(try row.value("b", as: [UInt8].self) == [7])
        #expect(try row.value("f", as: Bool.self) == true)
        #expect(try row.value("n", as: String?.self) == nil)
        #expect(try row.value("t", as: String?.self) == "seven")
        #expect(row.isNull("n"))
        #expect(!row.isNull(0))
    }

    @Test func typeMismatchAndNullThrowClearErrors() throws {
        try connection.run("INSERT INTO box (id, value) VALUES (1, 'text'), (2, NULL), (3, 1.5)")
        let rows = try connection.query("SELECT id, value AS fare FROM box ORDER BY id")
        #expect(rows.count == 3)

        let mismatch = try #require(throws: SQLiteError.self) { try rows[0].value("fare", as: Int64.self) }
        #expect(mismatch.kind == .typeMismatch)
        #expect(mismatch.message.contains("'fare'"))
        #expect(mismatch.message.contains("text"))
        #expect(mismatch.message.contains("Int64"))
        #expect(mismatch.sql == "SELECT id, value AS fare FROM box ORDER BY id")

        let null = try #require(throws: SQLiteError.self) { try rows[1].value(1, as: String.self) }
        #expect(null.kind == .unexpectedNull)
        #expect(null.message.contains("NULL"))

        let fraction = try #require(throws: SQLiteError.self) { try rows[2].value("fare", as: Int.self) }
        #expect(fraction.kind == .typeMismatch)

        let missing = try #require(throws: SQLiteError.self) { try rows[0].value("price", as: Int.self) }
        #expect(missing.kind == .noSuchColumn)
        #expect(missing.message.contains("'fare'"))
        #expect(throws: SQLiteError.self) { try rows[0].value(9, as: Int.self) }
    }

    @Test func namedParametersBindWithOrWithoutPrefix() throws {
        try connection.run(
            "INSERT INTO keyed (key, body) VALUES (:key, @body)", named: ["key": "k1", "@body": "hello"])
        let rows = try connection.query("SELECT body FROM keyed WHERE key = $key", named: ["$key": "k1"])
        #expect(try rows.map { try $0.value(0, as: String.self) } == ["hello"])

        let missing = try #require(throws: SQLiteError.self) {
            try connection.run("INSERT INTO keyed (key, body) VALUES (:key, :body)", named: ["key": "k2"])
        }
        #expect(missing.kind == .argumentMismatch)
        #expect(missing.message.contains(":body"))
        let extra = try #require(throws: SQLiteError.self) {
            try connection.run("DELETE FROM keyed WHERE key = :key", named: ["key": "k", "kee": "typo"])
        }
        #expect(extra.message.contains("kee"))
    }

    @Test func argumentCountMustMatch() throws {
        let error = try #require(throws: SQLiteError.self) {
            try connection.run("INSERT INTO box (id, value) VALUES (?, ?)", 1)
        }
        #expect(error.kind == .argumentMismatch)
        #expect(error.message.contains("2 parameter"))
        // The failed bind leaves the cached statement reusable.
        try connection.run("INSERT INTO box (id, value) VALUES (?, ?)", 1, "ok")
        #expect(try connection.query("SELECT * FROM box").count == 1)
    }

    @Test func rollbackOnThrowLeavesNothing() throws {
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try connection.transaction {
                try connection.run("INSERT INTO box (id, value) VALUES (1, 'a')")
                try connection.run("INSERT INTO box (id, value) VALUES (2, 'b')")
                #expect(connection.isInTransaction)
                throw Abort()
            }
        }
        #expect(!connection.isInTransaction)
        #expect(try connection.query("SELECT * FROM box").isEmpty)

        // An SQLite error inside the body also rolls back the rows before it.
        #expect(throws: SQLiteError.self) {
            try connection.transaction {
                try connection.run("INSERT INTO box (id, value) VALUES (1, 'a')")
                try connection.run("INSERT INTO box (id, value) VALUES (1, 'duplicate')")
            }
        }
        #expect(try connection.query("SELECT * FROM box").isEmpty)
    }

    @Test func nestedTransactionsUseSavepoints() throws {
        struct Abort: Error {}
        let total = try connection.transaction {
            try connection.run("INSERT INTO box (id, value) VALUES (1, 'outer')")
            // The inner failure undoes only the inner insert.
            _ = try? connection.transaction {
                try connection.run("INSERT INTO box (id, value) VALUES (2, 'inner')")
                throw Abort()
            }
            try connection.transaction {
                try connection.run("INSERT INTO box (id, value) VALUES (3, 'kept')")
            }
            return try connection.query("SELECT id FROM box").count
        }
        #expect(total == 2)
        let ids = try connection.query("SELECT id FROM box ORDER BY id").map { try $0.value(0, as: Int.self) }
        #expect(ids == [1, 3])
    }

    @Test func uniqueViolationIsRecognised() throws {
        try connection.run("INSERT INTO keyed (key, body) VALUES ('idem-1', 'first')")
        let primaryKey = try #require(throws: SQLiteError.self) {
            try connection.run("INSERT INTO keyed (key, body) VALUES ('idem-1', 'second')")
        }
        #expect(primaryKey.isUniqueViolation)
        #expect(primaryKey.isConstraintViolation)
        #expect(primaryKey.resultCode == 19)
        #expect(primaryKey.extendedResultCode == 1555)  // SQLITE_CONSTRAINT_PRIMARYKEY
        #expect(primaryKey.message.contains("UNIQUE constraint failed"))
        #expect(primaryKey.sql == "INSERT INTO keyed (key, body) VALUES ('idem-1', 'second')")

        let unique = try #require(throws: SQLiteError.self) {
            try connection.run("INSERT INTO keyed (key, body) VALUES ('idem-2', 'first')")
        }
        #expect(unique.isUniqueViolation)
        #expect(unique.extendedResultCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE

        let notNull = try #require(throws: SQLiteError.self) {
            try connection.run("INSERT INTO keyed (key, body) VALUES ('idem-3', NULL)")
        }
        #expect(notNull.isConstraintViolation)
        #expect(!notNull.isUniqueViolation)
        #expect(String(describing: notNull).contains("NOT NULL"))
    }

    @Test func foreignKeysAreEnforced() throws {
        try connection.execute(
            """
            CREATE TABLE trip (id TEXT PRIMARY KEY);
            CREATE TABLE trip_event (trip_id TEXT NOT NULL REFERENCES trip (id), version INTEGER NOT NULL);
            """)
        let error = try #require(throws: SQLiteError.self) {
            try connection.run("INSERT INTO trip_event (trip_id, version) VALUES ('nope', 1)")
        }
        #expect(error.isForeignKeyViolation)
    }

    @Test func changesAndLastInsertRowID() throws {
        try connection.run("INSERT INTO box (value) VALUES ('a')")
        let first = connection.lastInsertRowID
        try connection.run("INSERT INTO box (value) VALUES ('b')")
        #expect(connection.lastInsertRowID == first + 1)
        let updated = try connection.run("UPDATE box SET value = 'c'")
        #expect(updated == 2)
        #expect(connection.changes == 2)
        #expect(try connection.run("DELETE FROM box WHERE id = ?", first) == 1)
        #expect(try connection.run("DELETE FROM box WHERE id = ?", first) == 0)
        // A statement that changes no rows reports 0, not the count left over from the last UPDATE.
        #expect(try connection.run("CREATE TABLE other (x)") == 0)
        // The idempotent insert: a replayed key changes nothing, and says so.
        #expect(try connection.run("INSERT INTO keyed (key, body) VALUES ('k', 'b') ON CONFLICT DO NOTHING") == 1)
        #expect(try connection.run("INSERT INTO keyed (key, body) VALUES ('k', 'b') ON CONFLICT DO NOTHING") == 0)
        let returned = try connection.firstRow("INSERT INTO box (value) VALUES ('r') RETURNING id")
        #expect(try returned?.value("id", as: Int64.self) == connection.lastInsertRowID)
    }

    @Test func walModeAndDurabilityAreOn() throws {
        #expect(try connection.firstRow("PRAGMA journal_mode")?.value(0, as: String.self) == "wal")
        // FULL is 2, NORMAL is 1.
        #expect(try connection.firstRow("PRAGMA synchronous")?.value(0, as: Int.self) == 2)
        #expect(try connection.firstRow("PRAGMA foreign_keys")?.value(0, as: Int.self) == 1)

        let normal = try SQLiteConnection(
            .file(directory.database("normal.sqlite")), configuration: SQLiteConfiguration(durability: .normal))
        #expect(try normal.firstRow("PRAGMA journal_mode")?.value(0, as: String.self) == "wal")
        #expect(try normal.firstRow("PRAGMA synchronous")?.value(0, as: Int.self) == 1)
    }

    @Test func readScopeRefusesWrites() throws {
        try connection.run("INSERT INTO box (id, value) VALUES (1, 'a')")
        let count = try connection.read { try connection.query("SELECT * FROM box").count }
        #expect(count == 1)
        let error = try #require(throws: SQLiteError.self) {
            try connection.read { try connection.run("DELETE FROM box") }
        }
        #expect(error.kind == .writeInReadScope)
        #expect(throws: SQLiteError.self) { try connection.read { try connection.execute("DELETE FROM box") } }
        #expect(try connection.query("SELECT * FROM box").count == 1)
    }

    @Test func statementsAreReusedAndReentrantUseIsSafe() throws {
        for id in 1...50 {
            try connection.run("INSERT INTO box (id, value) VALUES (?, ?)", id, "v\(id)")
        }
        // The same SQL runs again while its cached statement is still being stepped.
        var pairs: [String] = []
        try connection.forEachRow("SELECT value FROM box WHERE id <= ? ORDER BY id", arguments: [2]) { outer in
            let inner = try connection.query("SELECT value FROM box WHERE id <= ? ORDER BY id", 1)
            pairs.append(try outer.value(0, as: String.self) + "/" + inner[0].value(0, as: String.self))
        }
        #expect(pairs == ["v1/v1", "v2/v1"])
    }

    @Test func scriptsAndSingleStatementsAreKeptApart() throws {
        let error = try #require(throws: SQLiteError.self) {
            try connection.run("INSERT INTO box (id) VALUES (1); INSERT INTO box (id) VALUES (2)")
        }
        #expect(error.message.contains("execute"))
        #expect(try connection.query("SELECT * FROM box").isEmpty)
        try connection.execute("INSERT INTO box (id) VALUES (1); -- one\n INSERT INTO box (id) VALUES (2);\n")
        #expect(try connection.query("SELECT * FROM box").count == 2)

        let syntax = try #require(throws: SQLiteError.self) { try connection.execute("SELEC 1") }
        #expect(syntax.kind == .sqlite)
        #expect(syntax.message.contains("syntax error"))
        #expect(syntax.sql == "SELEC 1")
    }

    @Test func closedConnectionThrows() throws {
        try connection.close()
        try connection.close()
        let error = try #require(throws: SQLiteError.self) { try connection.query("SELECT 1") }
        #expect(error.kind == .closed)
    }

    @Test func inMemoryDatabasesWork() throws {
        let memory = try SQLiteConnection(.inMemory, migrations: ["CREATE TABLE t (x)"])
        try memory.run("INSERT INTO t VALUES (?)", "x")
        #expect(try memory.query("SELECT x FROM t").count == 1)
    }

    @Test func openingAMissingDirectoryFailsClearly() throws {
        let error = try #require(throws: SQLiteError.self) {
            try SQLiteConnection(.file(directory.path + "/no/such/dir/db.sqlite"))
        }
        #expect(error.message.contains("cannot open"))
        #expect(error.message.contains("no/such/dir"))
    }
}
