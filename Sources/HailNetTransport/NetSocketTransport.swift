import HailAppSeams
import HailClient
import HailNet

/// WebSockets over HailNet's libwebsockets client: the transport the `hail` command, the simulated city and the
/// tests plug into `SocketConnector` on Linux, kept out of the app products so they link no C library beyond
/// SQLite's.
public final class NetSocketTransport: SocketTransport {
    private let client: WebSocketClient

    /// Starts one libwebsockets client context, shared by the streams it opens.
    public init(configuration: WebSocketClientConfiguration = WebSocketClientConfiguration()) throws(CallError) {
        do { client = try WebSocketClient(configuration: configuration) } catch {
            throw .noAnswer("cannot start the WebSocket client: \(error)")
        }
    }

    /// Opens `url`; returns when libwebsockets has completed the handshake.
    public func open(_ url: String, headers: [(name: String, value: String)]) async throws(CallError)
        -> any SocketStream
    {
        do {
            return NetSocketStream(try await client.connect(to: url, headers: headers.map { ($0.name, $0.value) }))
        } catch {
            throw .noAnswer("\(error)")
        }
    }

    /// Closes the client context; streams still open are closed.
    public func shutdown() async {
        await client.shutdown()
    }
}
