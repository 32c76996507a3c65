// Apple platforms have SQLite in the SDK (its own `SQLite3` module); elsewhere it comes through CSQLite, a
// Linux-only system library, so no iOS link picks up a Homebrew macOS library.
#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// One synchronous connection to a SQLite database: the core every store in Hail is built on.
///
/// Not Sendable: a connection belongs to one thread of control at a time (a `SQLiteDatabase` actor, or one
/// synchronous caller). Every call blocks on disk I/O, so async code should go through `SQLiteDatabase`, which
/// keeps these calls off the cooperative pool.
public final class SQLiteConnection {
    /// How a transaction takes its locks.
    public enum TransactionMode: Sendable, Hashable {
        /// Takes locks as statements need them; for reads, which then see one consistent snapshot.
        case deferred
        /// Takes the write lock at BEGIN, so a writer waits its turn there instead of failing with a busy error
        /// halfway through.
        case immediate
        /// Like immediate; in WAL mode SQLite treats the two the same.
        case exclusive

        var beginSQL: String {
            switch self {
            case .deferred: "BEGIN DEFERRED"
            case .immediate: "BEGIN IMMEDIATE"
            case .exclusive: "BEGIN EXCLUSIVE"
            }
        }
    }

    /// Where the database lives.
    public let location: SQLiteLocation
    /// The settings it was opened with.
    public let configuration: SQLiteConfiguration

    /// The C state. Never nil after init; optional only because init must set it before it can throw.
    private(set) var handle: SQLiteHandle?
    private var readOnlyDepth = 0
    private var savepointDepth = 0

    /// Opens (creating if needed) the database, sets WAL, durability, busy timeout and foreign keys, and applies
    /// any pending migrations in one transaction.
    ///
    /// Throws `.schemaTooNew` when the file has a higher `user_version` than `migrations.count`.
    public convenience init(
        _ location: SQLiteLocation, configuration: SQLiteConfiguration = SQLiteConfiguration(),
        migrations: [SQLiteMigration] = []
    ) throws {
        try self.init(location, configuration: configuration, migrations: migrations, readOnly: false)
    }

    /// Opens a database another program keeps, to read what it left there: like any opening it recovers the WAL a
    /// killed writer left behind, but it runs no migration and refuses no schema. For tools and tests that check a
    /// store's file; the program that owns the file opens it with its migrations.
    public static func inspecting(_ location: SQLiteLocation) throws -> SQLiteConnection {
        try SQLiteConnection(location, configuration: SQLiteConfiguration(), migrations: nil, readOnly: false)
    }

    /// Opens a connection; a read-only one expects a database that a writer already created and migrated. Nil
    /// `migrations` leaves the schema as it is.
    init(
        _ location: SQLiteLocation, configuration: SQLiteConfiguration, migrations: [SQLiteMigration]?,
        readOnly: Bool
    ) throws {
        self.location = location
        self.configuration = configuration
        var pointer: OpaquePointer?
        // NOMUTEX: a connection is never used by two threads at once (it is not Sendable), so SQLite's own
        // per-connection mutex would only cost time. EXRESCODE: extended codes, to tell UNIQUE from other failures.
        let access = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let flags = access | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        if !readOnly, case .file(let path) = location { Self.keepPrivate(path) }
        let code = sqlite3_open_v2(location.path, &pointer, flags, nil)
        guard code == SQLITE_OK, let pointer else {
            let error = SQLiteError(handle: pointer, code: code, sql: nil)
            sqlite3_close_v2(pointer)
            throw SQLiteError(
                kind: .sqlite, message: "cannot open \(location.path): \(error.message)", sql: nil,
                resultCode: error.resultCode, extendedResultCode: error.extendedResultCode)
        }
        handle = SQLiteHandle(pointer)
        sqlite3_extended_result_codes(pointer, 1)
        sqlite3_busy_timeout(pointer, Int32(clamping: configuration.busyTimeoutMilliseconds))
        try execute("PRAGMA foreign_keys = ON")
        if case .file = location {
            // WAL lets readers run while a writer commits, and makes a commit one append to the log.
            // A read-only connection cannot change the mode, only confirm the writer set it.
            let mode = try firstRow(readOnly ? "PRAGMA journal_mode" : "PRAGMA journal_mode = WAL")?
                .value(0, as: String.self)
            guard mode?.lowercased() == "wal" else {
                throw SQLiteError(
                    kind: .journalMode,
                    message: "\(location.path) stayed in journal mode '\(mode ?? "?")' instead of 'wal'")
            }
        }
        try execute("PRAGMA synchronous = \(configuration.durability.pragmaValue)")
        if !readOnly, let migrations { try migrate(migrations) }
    }

    // MARK: Running SQL

    /// Runs a script of zero or more statements, discarding any rows; for schema and pragmas.
    public func execute(_ script: String) throws {
        let db = try openPointer()
        try script.withCString { start in
            var cursor: UnsafePointer<CChar>? = start
            while let current = cursor, current.pointee != 0 {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v2(db, current, -1, &statement, &tail)
                guard code == SQLITE_OK else { throw SQLiteError(handle: db, code: code, sql: script) }
                cursor = tail
                guard let statement else { continue }  // only whitespace or a comment
                defer { sqlite3_finalize(statement) }
                let text = sqlite3_sql(statement).map { String(cString: $0) } ?? script
                if readOnlyDepth > 0 && sqlite3_stmt_readonly(statement) == 0 {
                    throw Self.writeInReadScope(text)
                }
                var stepCode = sqlite3_step(statement)
                while stepCode == SQLITE_ROW { stepCode = sqlite3_step(statement) }
                guard stepCode == SQLITE_DONE else { throw SQLiteError(handle: db, code: stepCode, sql: text) }
            }
        }
    }

    /// Runs one statement with positional arguments and returns how many rows it changed.
    @discardableResult
    public func run(_ sql: String, _ arguments: (any SQLiteValueConvertible)?...) throws -> Int {
        try run(sql, arguments: arguments)
    }

    /// Runs one statement with an array of positional arguments and returns how many rows it changed.
    @discardableResult
    public func run(_ sql: String, arguments: [(any SQLiteValueConvertible)?]) throws -> Int {
        try run(sql, .positional(arguments.map(Self.value(of:))))
    }

    /// Runs one statement with arguments bound by name (`:id`, `@id` or `$id`; the key may omit the prefix).
    @discardableResult
    public func run(_ sql: String, named arguments: [String: (any SQLiteValueConvertible)?]) throws -> Int {
        try run(sql, .named(arguments.mapValues(Self.value(of:))))
    }

    /// Runs a query with positional arguments and returns every row.
    public func query(_ sql: String, _ arguments: (any SQLiteValueConvertible)?...) throws -> [SQLiteRow] {
        try query(sql, arguments: arguments)
    }

    /// Runs a query with an array of positional arguments and returns every row.
    public func query(_ sql: String, arguments: [(any SQLiteValueConvertible)?]) throws -> [SQLiteRow] {
        var rows: [SQLiteRow] = []
        try forEachRow(sql, .positional(arguments.map(Self.value(of:)))) { rows.append($0) }
        return rows
    }

    /// Runs a query with arguments bound by name and returns every row.
    public func query(_ sql: String, named arguments: [String: (any SQLiteValueConvertible)?]) throws -> [SQLiteRow] {
        var rows: [SQLiteRow] = []
        try forEachRow(sql, .named(arguments.mapValues(Self.value(of:)))) { rows.append($0) }
        return rows
    }

    /// Runs a query with positional arguments and returns its first row, or nil when it has none.
    public func firstRow(_ sql: String, _ arguments: (any SQLiteValueConvertible)?...) throws -> SQLiteRow? {
        try firstRow(sql, arguments: arguments)
    }

    /// Runs a query with an array of positional arguments and returns its first row, or nil when it has none.
    public func firstRow(_ sql: String, arguments: [(any SQLiteValueConvertible)?]) throws -> SQLiteRow? {
        try withStatement(sql) { statement, db in
            try statement.bind(.positional(arguments.map(Self.value(of:))), handle: db)
            return try statement.step(handle: db) ? statement.currentRow() : nil
        }
    }

    /// Streams a query's rows to `body` without collecting them, for results too large to hold at once.
    public func forEachRow(
        _ sql: String, arguments: [(any SQLiteValueConvertible)?] = [], _ body: (SQLiteRow) throws -> Void
    ) throws {
        try forEachRow(sql, .positional(arguments.map(Self.value(of:))), body)
    }

    // MARK: Transactions

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// Inside another transaction this becomes a SAVEPOINT, so a nested failure undoes only its own part and
    /// the error still reaches the outer body.
    @discardableResult
    public func transaction<T>(_ mode: TransactionMode = .immediate, _ body: () throws -> T) throws -> T {
        let db = try openPointer()
        if sqlite3_get_autocommit(db) == 0 { return try savepoint(body) }
        try run(mode.beginSQL)
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            // Some errors (a full disk, an I/O error) already rolled the transaction back.
            if sqlite3_get_autocommit(db) == 0 { _ = try? run("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in a deferred transaction that refuses any statement that writes.
    ///
    /// The transaction gives the body one consistent snapshot even while other connections commit.
    @discardableResult
    public func read<T>(_ body: () throws -> T) throws -> T {
        readOnlyDepth += 1
        defer { readOnlyDepth -= 1 }
        return try transaction(.deferred, body)
    }

    private func savepoint<T>(_ body: () throws -> T) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "hail_savepoint_\(savepointDepth)"
        try run("SAVEPOINT \(name)")
        do {
            let result = try body()
            try run("RELEASE \(name)")
            return result
        } catch {
            if let db = handle?.pointer, sqlite3_get_autocommit(db) == 0 {
                _ = try? run("ROLLBACK TO \(name)")
                _ = try? run("RELEASE \(name)")
            }
            throw error
        }
    }

    // MARK: State

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    public var changes: Int {
        guard let db = handle?.pointer else { return 0 }
        return Int(sqlite3_changes64(db))
    }

    /// Rows changed since the connection opened.
    public var totalChanges: Int {
        guard let db = handle?.pointer else { return 0 }
        return Int(sqlite3_total_changes64(db))
    }

    /// The rowid of the most recent successful INSERT on this connection.
    public var lastInsertRowID: Int64 {
        guard let db = handle?.pointer else { return 0 }
        return sqlite3_last_insert_rowid(db)
    }

    /// True between BEGIN and COMMIT or ROLLBACK.
    public var isInTransaction: Bool {
        guard let db = handle?.pointer else { return false }
        return sqlite3_get_autocommit(db) == 0
    }

    /// The schema version: how many migrations this database has run.
    public func userVersion() throws -> Int {
        try firstRow("PRAGMA user_version")?.value(0, as: Int.self) ?? 0
    }

    /// Closes the connection; later calls throw `.closed`. Closing twice is harmless.
    public func close() throws {
        try handle?.close()
    }

    // MARK: Internals

    private func migrate(_ migrations: [SQLiteMigration]) throws {
        let known = migrations.count
        func refuseIfTooNew(_ version: Int) throws {
            guard version > known else { return }
            throw SQLiteError(
                kind: .schemaTooNew,
                message: "\(location.path) has schema version \(version) but this code knows only \(known) "
                    + "migration(s); it was written by newer code, so it is not opened rather than misread")
        }
        try refuseIfTooNew(try userVersion())
        guard try userVersion() < known else { return }
        try transaction(.immediate) {
            // Read again under the write lock: another process may have migrated while this one waited.
            let current = try userVersion()
            try refuseIfTooNew(current)
            for step in current..<known {
                try execute(migrations[step].sql)
                try execute("PRAGMA user_version = \(step + 1)")
            }
        }
    }

    private func run(_ sql: String, _ arguments: SQLiteArguments) throws -> Int {
        try withStatement(sql) { statement, db in
            try statement.bind(arguments, handle: db)
            // sqlite3_changes keeps the count of the last INSERT, UPDATE or DELETE, even across a CREATE or a
            // SELECT; comparing the running total tells whether this statement changed anything at all.
            let before = sqlite3_total_changes64(db)
            while try statement.step(handle: db) {}
            return sqlite3_total_changes64(db) == before ? 0 : Int(sqlite3_changes64(db))
        }
    }

    private func forEachRow(_ sql: String, _ arguments: SQLiteArguments, _ body: (SQLiteRow) throws -> Void) throws {
        try withStatement(sql) { statement, db in
            try statement.bind(arguments, handle: db)
            while try statement.step(handle: db) { try body(statement.currentRow()) }
        }
    }

    /// Lends the cached statement for `sql`, preparing it on first use. A statement already being stepped (the
    /// same SQL run from inside a `forEachRow` body) gets a fresh uncached one instead.
    private func withStatement<T>(_ sql: String, _ body: (SQLiteStatement, OpaquePointer) throws -> T) throws -> T {
        let db = try openPointer()
        guard let handle else { throw Self.closed(location) }
        let statement: SQLiteStatement
        if let cached = handle.statements[sql] {
            statement = cached.inUse ? try SQLiteStatement(handle: db, sql: sql, persistent: false) : cached
        } else {
            statement = try SQLiteStatement(handle: db, sql: sql, persistent: true)
            if handle.statements.count >= configuration.statementCacheCapacity,
                let victim = handle.statements.first(where: { !$0.value.inUse })?.key
            {
                handle.statements[victim] = nil
            }
            handle.statements[sql] = statement
        }
        if readOnlyDepth > 0 && !statement.isReadOnly { throw Self.writeInReadScope(sql) }
        statement.inUse = true
        defer { statement.reset() }
        return try body(statement, db)
    }

    private func openPointer() throws -> OpaquePointer {
        guard let pointer = handle?.pointer else { throw Self.closed(location) }
        return pointer
    }

    private static func closed(_ location: SQLiteLocation) -> SQLiteError {
        SQLiteError(kind: .closed, message: "the connection to \(location.path) is closed")
    }

    private static func value(of argument: (any SQLiteValueConvertible)?) -> SQLiteValue {
        argument?.sqliteValue ?? .null
    }

    private static func writeInReadScope(_ sql: String) -> SQLiteError {
        SQLiteError(kind: .writeInReadScope, message: "a statement that writes ran inside read { }", sql: sql)
    }
}
