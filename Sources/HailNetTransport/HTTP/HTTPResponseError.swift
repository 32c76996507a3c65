/// Why an HTTP response could not be read.
struct HTTPResponseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    struct Code: Hashable, Sendable {
        private enum Base: Hashable, Sendable { case closed, truncated, malformed }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The connection closed before any byte of the answer.
        static let closed = Code(.closed)
        /// The connection closed inside the answer.
        static let truncated = Code(.truncated)
        /// The bytes are not an HTTP/1.x answer this client reads.
        static let malformed = Code(.malformed)
    }

    /// What kind of failure this is.
    let code: Code
    /// What was wrong, for the caller's error message.
    let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    var description: String { message }
}
