import HailAppSeams

/// The seam between the live channels and a WebSocket library: opens one stream to a full URL.
///
/// The app products ship one, `URLSessionSocketTransport` (URLSessionWebSocketTask), so an iOS app links no C
/// library. The `hail` command, the simulated city and the tests on Linux plug in HailNetTransport's
/// `NetSocketTransport` (libwebsockets), which lives outside the app products.
public protocol SocketTransport: Sendable {
    /// Opens a WebSocket to `url` with extra request `headers` (the token in `Authorization`), returning
    /// once the stream is open; a failure is `noAnswer`, so a reconnect backs off.
    func open(_ url: String, headers: [(name: String, value: String)]) async throws(CallError) -> any SocketStream
    /// Releases what the transport holds; streams still open are closed.
    func shutdown() async
}
