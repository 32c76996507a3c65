/// An error from HailNet: what failed, in words a log line can carry.
public struct NetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure; new kinds may be added, so a `switch` over it needs a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case contextCreation, notRunning, invalidURL, connectFailed, crypto
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// libwebsockets could not create its context or listener.
        public static let contextCreation = Code(.contextCreation)
        /// An operation needed a running server or client that was stopped or never started.
        public static let notRunning = Code(.notRunning)
        /// A WebSocket URL could not be parsed.
        public static let invalidURL = Code(.invalidURL)
        /// A WebSocket client connection failed (refused, rejected upgrade, bad host).
        public static let connectFailed = Code(.connectFailed)
        /// OpenSSL refused a key or a MAC.
        public static let crypto = Code(.crypto)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A human-readable explanation, including what lws reported when it said anything.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The description is the message, so `"\(error)"` reads well in logs and test failures.
    public var description: String { message }

    static func contextCreation(_ detail: String) -> NetError { NetError(.contextCreation, detail) }
    static func notRunning(_ detail: String) -> NetError { NetError(.notRunning, detail) }
    static func invalidURL(_ detail: String) -> NetError { NetError(.invalidURL, detail) }
    static func connectFailed(_ detail: String) -> NetError { NetError(.connectFailed, detail) }
    static func crypto(_ detail: String) -> NetError { NetError(.crypto, detail) }

}
