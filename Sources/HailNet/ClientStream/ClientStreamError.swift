/// Why a `ClientStream` could not connect, send or receive.
public struct ClientStreamError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; new kinds may be added, so a `switch` over it needs a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unreachable, timedOut, closed, tls, configuration, io
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The host name did not resolve, or every address refused or could not be reached.
        public static let unreachable = Code(.unreachable)
        /// The connect, a send or a receive met the stream's timeout.
        public static let timedOut = Code(.timedOut)
        /// The server closed the connection.
        public static let closed = Code(.closed)
        /// The TLS handshake failed: the certificate did not verify, the name did not match, no common version.
        public static let tls = Code(.tls)
        /// A CA, certificate or key file could not be read or does not fit.
        public static let configuration = Code(.configuration)
        /// Any other socket failure.
        public static let io = Code(.io)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// What failed, naming the peer (`host:port`) and the system's or OpenSSL's reason.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
