import HailAppSeams
import HailProtocol
import HailTime

/// Opens the live streams the channels use, over a `SocketTransport`: by default URLSessionWebSocketTask
/// (`URLSessionSocketTransport`), the transport an iOS app ships; on Linux the `hail` command, the simulated city
/// and the tests pass HailNetTransport's libwebsockets one, since this Debian's libcurl cannot run
/// FoundationNetworking's WebSocket task.
public final class SocketConnector: Sendable {
    private let transport: any SocketTransport

    /// A connector over `transport`.
    public init(transport: any SocketTransport) {
        self.transport = transport
    }

    /// A connector over URLSessionWebSocketTask; `timeline` times its open timeout and keepalive
    /// (`SocketSessionMachine`).
    public convenience init(timeline: Timeline = .system()) {
        self.init(transport: URLSessionSocketTransport(timeline: timeline))
    }

    /// Connects to `url` (`ws://host:port/path?query`), sending `token` as `access_token` and the client header.
    public func connect(_ url: String, token: String, client info: ClientInfo? = nil) async throws(CallError)
        -> LiveSocket
    {
        let separator = url.contains("?") ? "&" : "?"
        let full = "\(url)\(separator)\(HailHeader.accessTokenQueryParameter)=\(PercentEncoding.encode(token))"
        var headers: [(name: String, value: String)] = []
        if let info { headers.append((HailHeader.client, info.headerValue)) }
        do {
            return LiveSocket(try await transport.open(full, headers: headers))
        } catch {
            throw .noAnswer("cannot open \(url): \(error.message)")
        }
    }

    /// Releases the transport; sockets still open are closed.
    public func shutdown() async {
        await transport.shutdown()
    }
}
