import CPostgres
import Foundation

/// One libpq connection: prepared statements with text parameters and results, and transactions.
///
/// `@unchecked Sendable` only because it wraps a `PGconn`, which libpq does not allow two threads to use
/// at once: what protects it is ownership, each connection being used by the single `ThreadPool`
/// thread it was given to, never by anyone else.
public final class PostgresConnection: @unchecked Sendable {
    private let url: String
    private let schema: String
    private var handle: OpaquePointer?
    private var statements: [String: String] = [:]
    private var statementsThisJob = 0
    private var openedThisJob = false
    /// True when the job's first statement failed on a connection opened before the job: the server had
    /// dropped it while it sat idle (a restart, a failover, a terminated backend), so nothing of the job
    /// took effect and the pool may run it again on a new connection. Every write here starts with
    /// `BEGIN`, so a first statement that did reach the server changed nothing either.
    private(set) var droppedWhileIdle = false

    /// Creates a connection that connects on first use, on its owning thread (connecting blocks).
    init(url: String, schema: String) {
        self.url = url
        self.schema = schema
    }

    /// Runs one or more statements without parameters (migrations, `BEGIN`, `COMMIT`).
    public func execute(_ sql: String) throws {
        try statement {
            let connection = try open()
            let result = PQexec(connection, sql)
            defer { PQclear(result) }
            _ = try rows(of: result, connection: connection)
        }
    }

    /// Runs one parameterised statement, prepared once per connection, and returns its rows.
    @discardableResult
    public func query(_ sql: String, _ parameters: [any PostgresEncodable] = []) throws -> [PostgresRow] {
        try statement { try run(sql, parameters) }
    }

    private func run(_ sql: String, _ parameters: [any PostgresEncodable]) throws -> [PostgresRow] {
        let connection = try open()
        let name = try prepare(sql, parameterCount: parameters.count, connection: connection)
        // libpq copies the parameters before returning, so the strings need only outlive the call.
        let texts = parameters.map { $0.postgresText.map { strdup($0) } ?? nil }
        defer { for text in texts { free(text) } }
        var values = texts.map { $0.map { UnsafePointer($0) } }
        let result = values.withUnsafeMutableBufferPointer { buffer in
            PQexecPrepared(connection, name, Int32(parameters.count), buffer.baseAddress, nil, nil, 0)
        }
        defer { PQclear(result) }
        return try rows(of: result, connection: connection)
    }

    /// Runs `body` between `BEGIN` and `COMMIT`, rolling back when it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            // A broken connection cannot roll back; the server does it when the session ends.
            if let handle, PQstatus(handle) == CONNECTION_OK { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Marks the start of a pool job, for `droppedWhileIdle`.
    func beginJob() {
        statementsThisJob = 0
        openedThisJob = false
        droppedWhileIdle = false
    }

    private func statement<T>(_ body: () throws -> T) throws -> T {
        let first = statementsThisJob == 0
        statementsThisJob += 1
        do {
            return try body()
        } catch let error as PostgresError where error.code == .connection {
            if first && !openedThisJob { droppedWhileIdle = true }
            close()
            throw error
        }
    }

    /// Closes the connection.
    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        statements = [:]
    }

    /// The live connection, connecting (or reconnecting after a failure) first.
    private func open() throws -> OpaquePointer {
        if let handle, PQstatus(handle) == CONNECTION_OK { return handle }
        close()
        openedThisJob = true
        guard let connection = PQconnectdb(url) else { throw PostgresError.connection("out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.errorMessage(connection)
            PQfinish(connection)
            throw PostgresError.connection(message)
        }
        handle = connection
        // Notices (such as "schema already exists") would go to stderr; only warnings matter here.
        try execute("SET client_min_messages TO warning; SET search_path TO \(PostgresIdentifier.quote(schema))")
        return connection
    }

    private func prepare(_ sql: String, parameterCount: Int, connection: OpaquePointer) throws -> String {
        if let name = statements[sql] { return name }
        let name = "hail_\(statements.count + 1)"
        let result = PQprepare(connection, name, sql, Int32(parameterCount), nil)
        defer { PQclear(result) }
        _ = try rows(of: result, connection: connection)
        statements[sql] = name
        return name
    }

    private func rows(of result: OpaquePointer?, connection: OpaquePointer) throws -> [PostgresRow] {
        guard let result else { throw PostgresError.connection(Self.errorMessage(connection)) }
        let status = PQresultStatus(result)
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            let message = String(cString: PQresultErrorMessage(result)).trimmingCharacters(in: .whitespacesAndNewlines)
            let sqlState = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let constraint = PQresultErrorField(result, Int32(UInt8(ascii: "n"))).map { String(cString: $0) }
            if PQstatus(connection) != CONNECTION_OK { throw PostgresError.connection(message) }
            throw PostgresError.statement(message, sqlState: sqlState, constraint: constraint)
        }
        let rowCount = PQntuples(result)
        let columnCount = PQnfields(result)
        var rows: [PostgresRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [String?] = []
            values.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                values.append(
                    PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column)))
            }
            rows.append(PostgresRow(values: values))
        }
        return rows
    }

    private static func errorMessage(_ connection: OpaquePointer) -> String {
        String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// SQL identifiers built from configuration (the schema name), checked so they cannot inject SQL.
enum PostgresIdentifier {
    /// True for a lowercase letter or underscore followed by lowercase letters, digits or underscores.
    static func isValid(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 63 else { return false }
        let isLetter = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || byte == UInt8(ascii: "_")
        }
        return isLetter(first)
            && name.utf8.allSatisfy { isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// The name in double quotes; callers validated it with `isValid`.
    static func quote(_ name: String) -> String { "\"\(name)\"" }
}
