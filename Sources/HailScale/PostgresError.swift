/// A failure from PostgreSQL or libpq, with the server's SQLSTATE when it sent one.
public struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; new kinds may be added, so a `switch` over it needs a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case connection, statement, decoding, closed, configuration, timedOut
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The server could not be reached or the connection broke.
        public static let connection = Code(.connection)
        /// The server refused a statement; `sqlState` says why.
        public static let statement = Code(.statement)
        /// A row held something the code could not read.
        public static let decoding = Code(.decoding)
        /// The pool was closed.
        public static let closed = Code(.closed)
        /// A URL or setting is unusable.
        public static let configuration = Code(.configuration)
        /// The server did not answer a statement in time: the connection was dropped, and whether the statement
        /// took effect is unknown.
        public static let timedOut = Code(.timedOut)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The five-character SQLSTATE (`23505` for a unique violation), nil when the server sent none.
    public let sqlState: String?
    /// The server's or libpq's message.
    public let message: String
    /// The constraint or index a violation names (`trips_one_active_rider`), nil when the server named none.
    public let constraint: String?

    private init(_ code: Code, sqlState: String? = nil, message: String, constraint: String? = nil) {
        self.code = code
        self.sqlState = sqlState
        self.message = message
        self.constraint = constraint
    }

    /// True for SQLSTATE 23505: a row with the same key exists (a racer inserted it first).
    public var isUniqueViolation: Bool { sqlState == "23505" }

    /// The message, with the SQLSTATE when there is one.
    public var description: String {
        sqlState.map { "PostgreSQL \($0): \(message)" } ?? "PostgreSQL: \(message)"
    }

    static func connection(_ message: String) -> PostgresError { PostgresError(.connection, message: message) }
    static func statement(_ message: String, sqlState: String?, constraint: String? = nil) -> PostgresError {
        PostgresError(.statement, sqlState: sqlState, message: message, constraint: constraint)
    }
    static func decoding(_ message: String) -> PostgresError { PostgresError(.decoding, message: message) }
    static func timedOut(_ message: String) -> PostgresError { PostgresError(.timedOut, message: message) }
    static let closed = PostgresError(.closed, message: "the connection pool is closed")
    static func configuration(_ message: String) -> PostgresError { PostgresError(.configuration, message: message) }
}
