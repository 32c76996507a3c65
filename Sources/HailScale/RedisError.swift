/// A failure from Redis or hiredis.
public struct RedisError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case connection
        case reply
        case unexpected
        case closed
        case configuration
    }

    private let code: Code
    /// The server's or hiredis's message.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// True when the server could not be reached or the connection broke.
    public var isConnectionFailure: Bool { code == .connection }

    /// The message.
    public var description: String { "Redis: \(message)" }

    static func connection(_ message: String) -> RedisError { RedisError(.connection, message) }
    static func reply(_ message: String) -> RedisError { RedisError(.reply, message) }
    static func unexpected(_ message: String) -> RedisError { RedisError(.unexpected, message) }
    static let closed = RedisError(.closed, "the connection is closed")
    static func configuration(_ message: String) -> RedisError { RedisError(.configuration, message) }
}
