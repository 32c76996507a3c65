import HailProtocol

/// Why a call to the server failed. A struct around a private code, so new cases do not break callers.
public struct ClientError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable {
        case transport
        case server
        case decoding
        case closed
    }

    private let code: Code
    /// The HTTP status for a server answer, else nil.
    public let status: Int?
    /// The server's error body, when it sent one.
    public let apiError: APIError?
    /// What happened, for logs and screens.
    public let message: String

    private init(_ code: Code, status: Int? = nil, apiError: APIError? = nil, message: String) {
        self.code = code
        self.status = status
        self.apiError = apiError
        self.message = message
    }

    /// The request never got an answer (no network, refused, timed out).
    public static func transport(_ message: String) -> ClientError { ClientError(.transport, message: message) }
    /// The server answered with an error status.
    public static func server(status: Int, error: APIError?) -> ClientError {
        ClientError(.server, status: status, apiError: error, message: error?.message ?? "HTTP \(status)")
    }
    /// The answer could not be read.
    public static func decoding(_ message: String) -> ClientError { ClientError(.decoding, message: message) }
    /// The stream is closed.
    public static func closed(code: UInt16, reason: String) -> ClientError {
        ClientError(.closed, status: Int(code), message: "closed \(code) \(reason)")
    }

    /// True when retrying the same request may succeed: no answer at all, 429, or a 5xx.
    public var isRetryable: Bool {
        switch code {
        case .transport, .closed: return true
        case .server: return status == 429 || (status ?? 0) >= 500
        case .decoding: return false
        }
    }

    /// True when the server refused the request itself (4xx other than 429): retrying cannot help.
    public var isRejection: Bool {
        guard code == .server, let status else { return false }
        return (400..<500).contains(status) && status != 429
    }

    /// True when the request never reached an answer.
    public var isTransport: Bool { code == .transport }

    /// The message.
    public var description: String { message }
}
