import Foundation
import HailProtocol

/// Why a call to the server failed: the one error contract of every seam the apps talk to the server through.
///
/// The runtimes decide on it alone: a refusal (`isRejection`) is shown and never retried, since the same request
/// can only be refused again; anything retryable (`isRetryable`: no answer, a server failing, a dropped stream)
/// is tried again with the same idempotency key. HailClient's live seams throw it, and so do the doubles; an
/// error of any other type counts as no answer. A struct around a private base, so new kinds break no `switch`.
public struct CallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; new kinds may be added, so a `switch` over it needs a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case noAnswer, refused, serverFailed, unreadable, streamClosed, unsupported
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The request got no answer: no network, refused connection, timeout.
        public static let noAnswer = Code(.noAnswer)
        /// The server refused the request itself (a 4xx other than 429): `apiError` says why.
        public static let refused = Code(.refused)
        /// The server answered 429 or a 5xx: it may take the same request later.
        public static let serverFailed = Code(.serverFailed)
        /// The request could not be written or its answer read.
        public static let unreadable = Code(.unreadable)
        /// A live stream closed; `closeCode` says how.
        public static let streamClosed = Code(.streamClosed)
        /// The seam's implementation cannot make this call at all (a server or double without the route).
        public static let unsupported = Code(.unsupported)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The HTTP status when the server answered, else nil.
    public let status: Int?
    /// The server's error body, when it sent one.
    public let apiError: APIError?
    /// The WebSocket close code, for a stream that closed.
    public let closeCode: UInt16?
    /// What happened, for logs and screens.
    public let message: String
    /// The seconds the server asked the app to wait before trying again (`Retry-After` on a 429 or a 503), when it
    /// said; a retrying caller waits at least this long (bounded: see `Backoff.delay(afterAttempt:retryAfter:using:)`).
    public let retryAfter: TimeInterval?

    private init(
        _ code: Code, status: Int? = nil, apiError: APIError? = nil, closeCode: UInt16? = nil, message: String,
        retryAfter: TimeInterval? = nil
    ) {
        self.code = code
        self.status = status
        self.apiError = apiError
        self.closeCode = closeCode
        self.message = message
        self.retryAfter = retryAfter
    }

    /// The request never got an answer.
    public static func noAnswer(_ message: String) -> CallError { CallError(.noAnswer, message: message) }

    /// The server answered `status` with `error`: a refusal for a 4xx other than 429, a server failure otherwise;
    /// `retryAfter` is its `Retry-After` in seconds, kept for a failure (a refusal is never retried).
    public static func answered(status: Int, error: APIError?, retryAfter: TimeInterval? = nil) -> CallError {
        let refused = (400..<500).contains(status) && status != 429
        return CallError(
            refused ? .refused : .serverFailed, status: status, apiError: error,
            message: error?.message ?? "HTTP \(status)", retryAfter: refused ? nil : retryAfter)
    }

    /// Not sent: the server asked, on an earlier answer, that nothing be sent for `seconds` more. Retryable, like
    /// the failure that said so, and never a request on the wire.
    public static func held(seconds: TimeInterval) -> CallError {
        CallError(
            .serverFailed, message: "not sent: the server asked to wait \(Int(seconds.rounded(.up))) s more",
            retryAfter: seconds)
    }

    /// The server refused with `error`, at the status its code stands for.
    public static func refused(_ error: APIError) -> CallError { answered(status: error.httpStatus, error: error) }

    /// The request could not be written or its answer read.
    public static func unreadable(_ message: String) -> CallError { CallError(.unreadable, message: message) }

    /// A live stream closed with `code` and `reason`.
    public static func streamClosed(code: UInt16, reason: String) -> CallError {
        CallError(.streamClosed, closeCode: code, message: "closed \(code) \(reason)")
    }

    /// The seam cannot make this call: `message` says which.
    public static func unsupported(_ message: String) -> CallError { CallError(.unsupported, message: message) }

    /// True when the server refused the request itself, or the seam cannot make it: retrying cannot help.
    public var isRejection: Bool { code == .refused || code == .unsupported }

    /// True when the same request may succeed later: no answer, a server failing, a dropped stream.
    public var isRetryable: Bool { code == .noAnswer || code == .serverFailed || code == .streamClosed }

    /// The message.
    public var description: String { message }
}

extension Error {
    /// This error as the seams' contract: a `CallError` as it is, anything else as no answer.
    public var asCallError: CallError {
        self as? CallError ?? .noAnswer("\(self)")
    }
}
