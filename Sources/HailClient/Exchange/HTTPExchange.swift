import HailAppSeams

/// What sends one HTTP request and reads its answer for `HTTPTransport`: URLSession by default
/// (`URLSessionExchange`), or another client where URLSession will not do (on Linux, HailNetTransport's
/// `NetHTTPExchange`, since FoundationNetworking keeps a core busy while a request waits).
///
/// An implementation bounds the whole exchange by the call's `timeout` and throws `CallError.noAnswer` for a
/// request that got no whole answer (refused, reset, closed mid-answer, timed out), naming the call; any status
/// the server answered, an error status included, is a reply, which `HTTPTransport` judges.
public protocol HTTPExchange: Sendable {
    /// Sends `call` and returns the server's answer, or why there was none.
    func exchange(_ call: HTTPCall) async throws(CallError) -> HTTPReply
}
