/// The async front of one SQLite database: an actor that owns one connection and runs every SQLite call on a
/// thread of its own, so an `await` on it never blocks Swift's cooperative threads or a network event loop.
///
/// Calls are serialised: one `read` or `write` at a time, in arrival order. Each `write` is one transaction,
/// committed before the `await` returns, so a caller may acknowledge a change as soon as `write` comes back.
public actor SQLiteDatabase {
    private let executor: SQLiteThreadExecutor
    private var connection: SQLiteConnection?
    /// The connection's C state, kept apart because it is Sendable and the deinit must hand it to the thread.
    private var handle: SQLiteHandle?

    /// Where the database lives.
    public nonisolated let location: SQLiteLocation

    /// Points the actor's isolation at its own thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private init(location: SQLiteLocation) {
        self.location = location
        self.executor = SQLiteThreadExecutor()
    }

    /// Opens the database on the actor's thread (WAL, durability, migrations), so opening blocks no one either.
    ///
    /// Throws what `SQLiteConnection.init` throws, including `.schemaTooNew`.
    public static func open(
        _ location: SQLiteLocation, configuration: SQLiteConfiguration = SQLiteConfiguration(),
        migrations: [SQLiteMigration] = []
    ) async throws -> SQLiteDatabase {
        let database = SQLiteDatabase(location: location)
        try await database.connect(configuration: configuration, migrations: migrations)
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

    private func connect(configuration: SQLiteConfiguration, migrations: [SQLiteMigration]) throws {
        let connection = try SQLiteConnection(location, configuration: configuration, migrations: migrations)
        self.connection = connection
        self.handle = connection.handle
    }

    /// Runs `body` in a read-only snapshot transaction; a statement that writes throws `.writeInReadScope`.
    @discardableResult
    public func read<T: Sendable>(_ body: @Sendable (SQLiteConnection) throws -> T) throws -> T {
        let connection = try openConnection()
        return try connection.read { try body(connection) }
    }

    /// Runs `body` in one write transaction (BEGIN IMMEDIATE), committed before this returns and rolled back
    /// when `body` throws.
    @discardableResult
    public func write<T: Sendable>(_ body: @Sendable (SQLiteConnection) throws -> T) throws -> T {
        let connection = try openConnection()
        return try connection.transaction(.immediate) { try body(connection) }
    }

    /// Runs `body` with the connection and no transaction around it, for work that must not be in one
    /// (VACUUM, some pragmas) or that manages its own.
    @discardableResult
    public func withConnection<T: Sendable>(_ body: @Sendable (SQLiteConnection) throws -> T) throws -> T {
        try body(try openConnection())
    }

    /// Closes the connection; later calls throw `.closed`. The thread stays until the actor is released.
    public func close() throws {
        let connection = self.connection
        self.connection = nil
        try connection?.close()
    }

    private func openConnection() throws -> SQLiteConnection {
        guard let connection else {
            throw SQLiteError(kind: .closed, message: "the database at \(location) is closed")
        }
        return connection
    }
}
