/// Why one exchange on one connection failed, as `NetHTTPExchange` decides on it: whether to try a fresh
/// connection, and which `CallError` the caller gets.
enum HTTPExchangeFailure: Error, Sendable, Equatable {
    /// No connection: the name did not resolve, the server refused, no route, a failed TLS handshake.
    case connect(String)
    /// The deadline passed, connecting or waiting for the answer.
    case timedOut
    /// The connection was reset or closed before the answer was whole; `answerStarted` when some of it had come.
    case lost(String, answerStarted: Bool)
    /// The server's bytes are not an HTTP answer this client reads.
    case malformed(String)
}
