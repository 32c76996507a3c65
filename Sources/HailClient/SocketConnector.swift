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

    /// Connects to `url` (`ws://host:port/path?query`), sending `token` in `Authorization` on the upgrade (never in
    /// the URL, which reaches proxies' access logs) and the client header.
    public func connect(_ url: String, token: String, client info: ClientInfo? = nil) async throws(CallError)
        -> LiveSocket
    {
        try await connect(url, tokens: FixedAccessToken(token), client: info)
    }

    /// Connects to `url` with the provider's current token in `Authorization`: each reconnect asks again, so a
    /// stream reopened after its token expired carries the new one.
    public func connect(_ url: String, tokens: any AccessTokenProvider, client info: ClientInfo? = nil)
        async throws(CallError) -> LiveSocket
    {
        try await open(url, token: try await tokens.currentToken(), client: info)
    }

    private func open(_ url: String, token: String, client info: ClientInfo?) async throws(CallError) -> LiveSocket {
        var headers: [(name: String, value: String)] = [(HailHeader.authorization, BearerToken.headerValue(token))]
        if let info { headers.append((HailHeader.client, info.headerValue)) }
        do {
            return LiveSocket(try await transport.open(url, headers: headers))
        } catch {
            throw .noAnswer("cannot open \(url): \(error.message)")
        }
    }

    /// Releases the transport; sockets still open are closed.
    public func shutdown() async {
        await transport.shutdown()
    }
}
