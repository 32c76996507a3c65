/// What an `HTTPResponder` gives back, on the loop that read the request: the response itself, when it could be
/// made from memory there and then, or the work that will make it.
///
/// `.now` costs no task, no continuation and no executor job: the engine writes the response in the callback that
/// read the request (a GET or HEAD) or on the connection's next writable callback (a request with a body). `.later`
/// runs as a task on the same loop, like an `HTTPHandler`, and may suspend.
public enum HTTPAnswer: Sendable {
    /// The response, made without suspending.
    case now(HTTPResponse)
    /// The rest of the request's work, run as a task that prefers the request's loop.
    case later(@Sendable () async -> HTTPResponse)
}

/// The synchronous front of an HTTP server: called on the loop thread for every request, it answers at once or
/// hands back the work that will (`HTTPAnswer`). It must not block: anything that waits belongs in `.later`.
public typealias HTTPResponder = @Sendable (HTTPRequest) -> HTTPAnswer
