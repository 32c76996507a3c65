/// A failure from PostgreSQL or libpq, with the server's SQLSTATE when it sent one.
public struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case connection
        case statement
        case decoding
        case closed
        case configuration
    }

    private let code: Code
    /// The five-character SQLSTATE (`23505` for a unique violation), nil when the server sent none.
    public let sqlState: String?
    /// The server's or libpq's message.
    public let message: String

    private init(_ code: Code, sqlState: String? = nil, message: String) {
        self.code = code
        self.sqlState = sqlState
        self.message = message
    }

    /// True for SQLSTATE 23505: a row with the same key exists (a racer inserted it first).
    public var isUniqueViolation: Bool { sqlState == "23505" }
    /// True when the server could not be reached or the connection broke.
    public var isConnectionFailure: Bool { code == .connection }

    /// The message, with the SQLSTATE when there is one.
    public var description: String {
        sqlState.map { "PostgreSQL \($0): \(message)" } ?? "PostgreSQL: \(message)"
    }

    static func connection(_ message: String) -> PostgresError { PostgresError(.connection, message: message) }
    static func statement(_ message: String, sqlState: String?) -> PostgresError {
        PostgresError(.statement, sqlState: sqlState, message: message)
    }
    static func decoding(_ message: String) -> PostgresError { PostgresError(.decoding, message: message) }
    static let closed = PostgresError(.closed, message: "the connection pool is closed")
    static func configuration(_ message: String) -> PostgresError { PostgresError(.configuration, message: message) }
}
