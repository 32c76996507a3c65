import CPostgres
import Foundation
import HailThreads

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One libpq connection: prepared statements with text parameters and results, and transactions.
///
/// No wait is unbounded (`PostgresTimeouts`): the connect by `connect_timeout`, a dead idle peer by TCP
/// keepalives, unacknowledged data by `tcp_user_timeout`, and each statement's answer by a wait of the
/// connection's own (libpq's asynchronous calls and `poll` on its socket with a deadline), since a server that
/// is paused, or a path that drops packets without a reset, answers nothing and lets no server-side timeout
/// fire. A statement that gets no answer in time drops the connection (its state is unknown) and fails with
/// `PostgresError.Code.timedOut`; the server's `statement_timeout` and `idle_in_transaction_session_timeout`
/// end what the dropped session left running or holding.
///
/// `@unchecked Sendable` only because it wraps a `PGconn`, which libpq does not allow two threads to use
/// at once: what protects it is ownership, each connection being used by the single `ThreadPool`
/// thread it was given to, never by anyone else.
public final class PostgresConnection: @unchecked Sendable {
    private let url: String
    private let schema: String
    let timeouts: PostgresTimeouts
    /// How long the thread waits for one statement's answer; nil while migrating (a long migration is not a
    /// fault, and it runs before the node serves anyone).
    var statementWait: Duration?
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
    init(url: String, schema: String, timeouts: PostgresTimeouts = PostgresTimeouts()) {
        self.url = url
        self.schema = schema
        self.timeouts = timeouts
        statementWait = timeouts.statementWait
    }

    /// Runs one or more statements without parameters (migrations, `BEGIN`, `COMMIT`).
    public func execute(_ sql: String) throws {
        try statement {
            let connection = try open()
            let result = try exchange(connection) { PQsendQuery(connection, sql) }
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
        let result = try exchange(connection) {
            values.withUnsafeMutableBufferPointer { buffer in
                PQsendQueryPrepared(connection, name, Int32(parameters.count), buffer.baseAddress, nil, nil, 0)
            }
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
        } catch let error as PostgresError where error.code == .connection || error.code == .timedOut {
            // A statement that timed out may have reached the server: only a refused one is safe to run again.
            if first && !openedThisJob && error.code == .connection { droppedWhileIdle = true }
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
        let keywords = try Self.keywords(of: url)
        let options = keywords["options"] ?? ""
        let defaults =
            timeouts.connectionParameters
            + PostgresTLSDefault.parameters(keywords: keywords, environment: ProcessInfo.processInfo.environment)
        guard let connection = Self.connect(url: url, before: defaults) else {
            throw PostgresError.connection("out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.errorMessage(connection)
            PQfinish(connection)
            throw PostgresError.connection(message)
        }
        handle = connection
        // Notices (such as "schema already exists") would go to stderr; only warnings matter here. The
        // timeouts the URL's `options` do not set are set here, in the same round trip.
        let settings =
            ["SET client_min_messages TO warning", "SET search_path TO \(PostgresIdentifier.quote(schema))"]
            + timeouts.sessionSettings(besides: options)
        try execute(settings.joined(separator: "; "))
        return connection
    }

    /// Connects with `parameters` first and the operator's `url` after them, so that whatever the URL sets wins
    /// (libpq keeps the last value of a repeated keyword).
    private static func connect(url: String, before parameters: [(String, String)]) -> OpaquePointer? {
        let pairs = parameters + [("dbname", url)]
        let keywords = pairs.map { strdup($0.0) }
        let values = pairs.map { strdup($0.1) }
        defer {
            for pointer in keywords + values { free(pointer) }
        }
        var keywordArray = keywords.map { UnsafePointer($0) } + [nil]
        var valueArray = values.map { UnsafePointer($0) } + [nil]
        return keywordArray.withUnsafeMutableBufferPointer { keywordBuffer in
            valueArray.withUnsafeMutableBufferPointer { valueBuffer in
                PQconnectdbParams(keywordBuffer.baseAddress, valueBuffer.baseAddress, 1)
            }
        }
    }

    /// The keywords the URL sets and their values (libpq's parse: no defaults, no environment).
    static func keywords(of url: String) throws -> [String: String] {
        var error: UnsafeMutablePointer<CChar>?
        guard let parsed = PQconninfoParse(url, &error) else {
            let message = error.map { String(cString: $0) } ?? "out of memory"
            if let error { PQfreemem(error) }
            let reason = Self.masking(passwordOf: url, in: message).trimmingCharacters(in: .whitespacesAndNewlines)
            throw PostgresError.configuration("bad PostgreSQL URL: \(reason)")
        }
        defer { PQconninfoFree(parsed) }
        var keywords: [String: String] = [:]
        var option = parsed
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { keywords[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return keywords
    }

    /// `message` with the URL's password as written (`postgresql://user:PASSWORD@...`) replaced by `***`: libpq
    /// quotes the token it could not read, such as a bad percent-encoding in the password.
    static func masking(passwordOf url: String, in message: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return message }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else {
            return message
        }
        let password = String(authority[authority.index(after: colon)..<at])
        return password.isEmpty ? message : message.replacingOccurrences(of: password, with: "***")
    }

    /// Sends one query with `send` and waits for its results within `statementWait`; the first failed result,
    /// else the last (a string of statements answers one result each).
    private func exchange(_ connection: OpaquePointer, _ send: () -> Int32) throws -> OpaquePointer {
        guard send() == 1 else { throw PostgresError.connection(Self.errorMessage(connection)) }
        let deadline = statementWait.map { ContinuousClock.now + $0 }
        var chosen: OpaquePointer?
        defer { if let chosen { PQclear(chosen) } }
        while true {
            try awaitResult(connection, until: deadline)
            guard let result = PQgetResult(connection) else { break }
            if let current = chosen, Self.failed(current) {
                PQclear(result)
            } else {
                if let current = chosen { PQclear(current) }
                chosen = result
            }
        }
        guard let result = chosen else { throw PostgresError.connection(Self.errorMessage(connection)) }
        chosen = nil
        return result
    }

    /// Reads until libpq holds a whole result, waiting on the socket no later than `deadline`.
    private func awaitResult(_ connection: OpaquePointer, until deadline: ContinuousClock.Instant?) throws {
        while PQisBusy(connection) == 1 {
            var timeout: Int32 = -1
            if let deadline {
                let left = deadline - .now
                guard left > .zero else {
                    throw PostgresError.timedOut(
                        "no answer within \((statementWait ?? .zero).secondsText) s; the connection was dropped")
                }
                timeout = Int32(clamping: PostgresTimeouts.milliseconds(left) + 1)
            }
            var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, timeout)
            if ready < 0, errno != EINTR {
                throw PostgresError.connection("poll: \(String(cString: strerror(errno)))")
            }
            if ready > 0, PQconsumeInput(connection) != 1 {
                throw PostgresError.connection(Self.errorMessage(connection))
            }
        }
    }

    private static func failed(_ result: OpaquePointer) -> Bool {
        let status = PQresultStatus(result)
        return status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK
    }

    private func prepare(_ sql: String, parameterCount: Int, connection: OpaquePointer) throws -> String {
        if let name = statements[sql] { return name }
        let name = "hail_\(statements.count + 1)"
        let result = try exchange(connection) { PQsendPrepare(connection, name, sql, Int32(parameterCount), nil) }
        defer { PQclear(result) }
        _ = try rows(of: result, connection: connection)
        statements[sql] = name
        return name
    }

    private func rows(of result: OpaquePointer, connection: OpaquePointer) throws -> [PostgresRow] {
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
