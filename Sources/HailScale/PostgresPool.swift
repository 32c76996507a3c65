import Foundation
import HailThreads

/// A few PostgreSQL connections, each on a thread of its own, with the schema migrated at start.
public final class PostgresPool: Sendable {
    private let threads: ThreadPool<PostgresConnection>
    /// The waits on this database.
    public let timeouts: PostgresTimeouts

    private init(threads: ThreadPool<PostgresConnection>, timeouts: PostgresTimeouts) {
        self.threads = threads
        self.timeouts = timeouts
    }

    /// Connects `size` connections to `url` (a libpq URI or key=value string), working in `schema`, and
    /// applies the `migrations` not yet recorded in its `schema_migrations` table. Each job waits in a queue
    /// of at most `capacity` and its caller at most `timeouts.deadline` (the migrations as long as they take).
    public static func connect(
        url: String, schema: String = "public", size: Int = 4, migrations: [String],
        timeouts: PostgresTimeouts = PostgresTimeouts(), capacity: Int = 1024
    ) async throws -> PostgresPool {
        guard PostgresIdentifier.isValid(schema) else { throw PostgresError.configuration("bad schema name \(schema)") }
        let connections = (0..<max(1, size)).map { _ in
            PostgresConnection(url: url, schema: schema, timeouts: timeouts)
        }
        let pool = PostgresPool(
            threads: ThreadPool(
                resources: connections, name: "hail-postgres", capacity: capacity, closedError: PostgresError.closed,
                release: { $0.close() }),
            timeouts: timeouts)
        do {
            try await pool.threads.run { connection in
                try Self.job(on: connection) { connection in
                    try Self.migrate(connection, schema: schema, migrations: migrations)
                }
            }
        } catch {
            pool.close()
            throw error
        }
        return pool
    }

    /// Runs `body` on a free connection's thread; once more on a new connection when the server had
    /// dropped the idle one before `body` reached it. Throws `ThreadPoolError` when the queue is full or
    /// nothing came back within `timeouts.deadline`.
    public func run<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await threads.run(within: timeouts.deadline) { connection in try Self.job(on: connection, body) }
    }

    /// Runs `body` on a free connection's thread, never again: for a statement that may have taken effect
    /// when its connection broke (a commit without `BEGIN`).
    public func runOnce<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await threads.run(within: timeouts.deadline) { connection in
            connection.beginJob()
            return try body(connection)
        }
    }

    /// Queues `body` for a free connection's thread without waiting for it, from any thread (`body` wraps its
    /// statements in `job(on:_:)` for the retry `run` gives); the reason when it never runs (the pool is
    /// closed, or its queue full).
    func submit(_ body: @escaping @Sendable (PostgresConnection) -> Void) -> (any Error & Sendable)? {
        threads.submit(body)
    }

    /// One job's body on `connection`, run again on a new connection when the idle one had been dropped.
    static func job<T>(on connection: PostgresConnection, _ body: (PostgresConnection) throws -> T) throws -> T {
        connection.beginJob()
        do {
            return try body(connection)
        } catch  where connection.droppedWhileIdle {
            connection.beginJob()
            return try body(connection)
        }
    }

    /// Lets queued work finish, then closes the connections.
    public func close() { threads.close() }

    private static func migrate(_ connection: PostgresConnection, schema: String, migrations: [String]) throws {
        // A migration may take long and wait for another node's: neither is a fault, and no one is served yet.
        connection.statementWait = nil
        defer { connection.statementWait = connection.timeouts.statementWait }
        try connection.transaction {
            try connection.execute(
                "SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0; "
                    + "SET LOCAL idle_in_transaction_session_timeout = 0")
            // Several nodes may start at once: the first to take this lock migrates, the others then see it done.
            try connection.execute("SELECT pg_advisory_xact_lock(7262021)")
            if schema != "public" {
                try connection.execute("CREATE SCHEMA IF NOT EXISTS \(PostgresIdentifier.quote(schema))")
            }
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY,
                    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                )
                """)
            let applied = try connection.query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
            let current = try applied.first?.int(0) ?? 0
            for (index, migration) in migrations.enumerated() where index + 1 > current {
                try connection.execute(migration)
                try connection.query("INSERT INTO schema_migrations (version) VALUES ($1)", [index + 1])
            }
        }
    }
}
