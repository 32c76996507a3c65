import HailThreads

/// The async front of one SQLite database: an actor that owns the writing connection and runs every SQLite call
/// on a thread of its own, so an `await` on it never blocks Swift's cooperative threads or a network event loop.
///
/// Writes are serialised, in arrival order, and each `write` is one transaction committed before the `await`
/// returns, so a caller may acknowledge a change as soon as `write` comes back. Reads of a file database go to a
/// second, read-only connection on a second thread: WAL lets them run while a write is waiting for its fsync,
/// and each sees every write that returned before it began.
public actor SQLiteDatabase {
    private let executor: ThreadExecutor
    private var connection: SQLiteConnection?
    /// The connection's C state, kept apart because it is Sendable and the deinit must hand it to the thread.
    private var handle: SQLiteHandle?
    /// Where reads go; nil when this actor is itself the reader, or the database is in memory.
    private nonisolated let reader: SQLiteDatabase?

    /// Where the database lives.
    public nonisolated let location: SQLiteLocation

    /// Points the actor's isolation at its own thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private init(location: SQLiteLocation, reader: SQLiteDatabase?) {
        self.location = location
        self.reader = reader
        self.executor = ThreadExecutor(name: "hail-sqlite")
    }

    /// Opens the database on the actor's thread (WAL, durability, migrations), so opening blocks no one either.
    ///
    /// `separateReader: false` sends reads to the writing connection too, which halves the threads and file
    /// handles at the cost of reads waiting behind writes. An in-memory database always works that way, since a
    /// second connection would open a second, empty database. Throws what `SQLiteConnection.init` throws,
    /// including `.schemaTooNew`.
    public static func open(
        _ location: SQLiteLocation, configuration: SQLiteConfiguration = SQLiteConfiguration(),
        migrations: [SQLiteMigration] = [], separateReader: Bool = true
    ) async throws -> SQLiteDatabase {
        let reader: SQLiteDatabase? =
            if separateReader, case .file = location { SQLiteDatabase(location: location, reader: nil) } else { nil }
        let database = SQLiteDatabase(location: location, reader: reader)
        // The writer first: it creates the file, sets WAL and migrates, all of which the reader relies on.
        try await database.connect(configuration: configuration, migrations: migrations, readOnly: false)
        try await reader?.connect(configuration: configuration, migrations: [], readOnly: true)
        return database
    }

    deinit {
        // Closing may checkpoint the WAL, so it goes to the database thread rather than whichever thread
        // dropped the last reference; the thread exits after it.
        if let handle {
            executor.execute { _ = try? handle.close() }
        }
        executor.stop()
    }

    private func connect(configuration: SQLiteConfiguration, migrations: [SQLiteMigration], readOnly: Bool) throws {
        let connection = try SQLiteConnection(
            location, configuration: configuration, migrations: migrations, readOnly: readOnly)
        self.connection = connection
        self.handle = connection.handle
    }

    /// Runs `body` in a read-only snapshot transaction; a statement that writes throws `.writeInReadScope`.
    @discardableResult
    public nonisolated func read<T: Sendable>(_ body: @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        if let reader { return try await reader.readHere(body) }
        return try await readHere(body)
    }

    /// Runs `body` in one write transaction (BEGIN IMMEDIATE), committed before this returns and rolled back
    /// when `body` throws.
    @discardableResult
    public func write<T: Sendable>(_ body: @Sendable (SQLiteConnection) throws -> T) throws -> T {
        let connection = try openConnection()
        return try connection.transaction(.immediate) { try body(connection) }
    }

    /// Runs `body` with the writing connection and no transaction around it, for work that must not be in one
    /// (VACUUM, some pragmas) or that manages its own.
    @discardableResult
    public func withConnection<T: Sendable>(_ body: @Sendable (SQLiteConnection) throws -> T) throws -> T {
        try body(try openConnection())
    }

    /// Closes the connections; later calls throw `.closed`. The threads stay until the actor is released.
    public func close() async throws {
        let connection = self.connection
        self.connection = nil
        try await reader?.close()
        try connection?.close()
    }

    private func readHere<T: Sendable>(_ body: @Sendable (SQLiteConnection) throws -> T) throws -> T {
        let connection = try openConnection()
        return try connection.read { try body(connection) }
    }

    private func openConnection() throws -> SQLiteConnection {
        guard let connection else {
            throw SQLiteError(kind: .closed, message: "the database at \(location.path) is closed")
        }
        return connection
    }
}
