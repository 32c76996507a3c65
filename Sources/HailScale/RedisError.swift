/// A failure from Redis or hiredis.
public struct RedisError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; new kinds may be added, so a `switch` over it needs a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case connection, reply, unexpected, closed, configuration, authentication
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The server could not be reached or the connection broke.
        public static let connection = Code(.connection)
        /// The server answered with an error.
        public static let reply = Code(.reply)
        /// An answer was not of the shape expected, or stored state is damaged.
        public static let unexpected = Code(.unexpected)
        /// The connection was closed.
        public static let closed = Code(.closed)
        /// A URL or setting is unusable, or the server is too old for a script.
        public static let configuration = Code(.configuration)

        /// Redis refused Hail's credentials (`WRONGPASS`), or wants some and none were given (`NOAUTH`): a wrong
        /// setting, not an outage, so a node stops at start rather than retrying.
        public static let authentication = Code(.authentication)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The server's or hiredis's message.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { "Redis: \(message)" }

    static func connection(_ message: String) -> RedisError { RedisError(.connection, message) }
    static func reply(_ message: String) -> RedisError { RedisError(.reply, message) }
    static func unexpected(_ message: String) -> RedisError { RedisError(.unexpected, message) }
    static let closed = RedisError(.closed, "the connection is closed")
    static func configuration(_ message: String) -> RedisError { RedisError(.configuration, message) }
    static func authentication(_ message: String) -> RedisError { RedisError(.authentication, message) }
}
