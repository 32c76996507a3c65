/// An error from HailNet: what failed, in words a log line can carry.
public struct NetError: Error, Sendable, Equatable, CustomStringConvertible {
    // The codes stay private so new failure kinds can be added without breaking callers' switches.
    private enum Code: Sendable, Equatable {
        case contextCreation
        case alreadyStarted
        case notRunning
        case invalidURL
        case connectFailed
        case crypto
    }

    private let code: Code
    /// A human-readable explanation, including what lws reported when it said anything.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The description is the message, so `"\(error)"` reads well in logs and test failures.
    public var description: String { message }

    static func contextCreation(_ detail: String) -> NetError { NetError(.contextCreation, detail) }
    static func alreadyStarted(_ detail: String) -> NetError { NetError(.alreadyStarted, detail) }
    static func notRunning(_ detail: String) -> NetError { NetError(.notRunning, detail) }
    static func invalidURL(_ detail: String) -> NetError { NetError(.invalidURL, detail) }
    static func connectFailed(_ detail: String) -> NetError { NetError(.connectFailed, detail) }
    static func crypto(_ detail: String) -> NetError { NetError(.crypto, detail) }

    /// True when the error is a failed WebSocket client connection (refused, rejected upgrade, bad host).
    public var isConnectFailure: Bool { code == .connectFailed }
    /// True when an operation needed a running server or client that was stopped or never started.
    public var isNotRunning: Bool { code == .notRunning }
}
