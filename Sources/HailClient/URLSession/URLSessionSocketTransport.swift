import Foundation
import HailAppSeams
import HailTime

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// WebSockets over URLSessionWebSocketTask, run by `TaskSocket`: the app products' transport, open only once the
/// server has spoken (`SocketSessionMachine`), as the libwebsockets one is.
///
/// It compiles on Linux too (FoundationNetworking has the types), so CI type-checks what an iOS app runs; this
/// Debian's libcurl has no WebSocket support, so on Linux it is never run against a server.
public struct URLSessionSocketTransport: SocketTransport {
    private let session: URLSession
    private let timeline: Timeline

    /// A transport on `session`; `timeline` times the open timeout and the keepalive.
    public init(session: URLSession = .shared, timeline: Timeline = .system()) {
        self.session = session
        self.timeline = timeline
    }

    /// Resumes a WebSocket task for `url` and returns once the server's first frame arrived.
    public func open(_ url: String, headers: [(name: String, value: String)]) async throws(CallError)
        -> any SocketStream
    {
        guard let target = URL(string: url) else { throw .noAnswer("bad URL \(url)") }
        var request = URLRequest(url: target)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let socket = TaskSocket(task: session.webSocketTask(with: request), timeline: timeline)
        try await socket.open()
        return socket
    }

    /// Nothing to release: the session is shared, and each task ends with its stream.
    public func shutdown() async {}
}

extension TaskSocket: SocketStream {}
