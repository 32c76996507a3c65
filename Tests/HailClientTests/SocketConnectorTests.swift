import Foundation
import HailAppSeams
import HailProtocol
import Synchronization
import Testing

@testable import HailClient

/// The token of a native app's stream travels in `Authorization` on the upgrade, never in the URL, where proxies'
/// access logs would keep it; a provider is asked again on every connect.
@Suite("SocketConnector: the token in the upgrade's header")
struct SocketConnectorTests {
    /// A transport that opens nothing real: it notes each URL and header set it is asked for.
    final class RecordingTransport: SocketTransport {
        let opened = Mutex<[(url: String, headers: [String: String])]>([])

        func open(_ url: String, headers: [(name: String, value: String)]) async throws(CallError)
            -> any SocketStream
        {
            opened.withLock {
                $0.append((url, Dictionary(headers.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })))
            }
            return IdleStream()
        }

        func shutdown() async {}
    }

    /// A stream that is open and silent.
    struct IdleStream: SocketStream {
        var frames: AsyncStream<SocketFrame> { AsyncStream { _ in } }
        func send(_ frame: SocketFrame) -> Bool { true }
        func close(code: UInt16, reason: String) {}
        func closed() async -> SocketClose { SocketClose(code: 1000, reason: "") }
    }

    /// Hands out `token-1`, `token-2`... one per connect.
    final class CountingTokens: AccessTokenProvider {
        let count = Mutex(0)

        func currentToken() async throws(CallError) -> String {
            count.withLock {
                $0 += 1
                return "token-\($0)"
            }
        }

        func refreshedToken(after rejected: String) async throws(CallError) -> String { try await currentToken() }
    }

    @Test func aFixedTokenGoesInAuthorizationAndTheURLIsLeftAlone() async throws {
        let transport = RecordingTransport()
        let connector = SocketConnector(transport: transport)
        let info = ClientInfo(app: "hail-rider", version: "1.0.0")
        _ = try await connector.connect(
            "ws://127.0.0.1:8080/v1/trips/t-1/live?after=3", token: "hail1.abc.def", client: info)
        let opened = transport.opened.withLock { $0 }
        #expect(opened.map(\.url) == ["ws://127.0.0.1:8080/v1/trips/t-1/live?after=3"])
        #expect(opened.first?.headers[HailHeader.authorization] == "Bearer hail1.abc.def")
        #expect(opened.first?.headers[HailHeader.client] == info.headerValue)
    }

    @Test func aProviderIsAskedAgainOnEveryConnect() async throws {
        let transport = RecordingTransport()
        let channel = RiderLiveChannel(
            baseURL: try #require(URL(string: "http://127.0.0.1:8080")), tokens: CountingTokens(),
            connector: SocketConnector(transport: transport))
        _ = try await channel.open(tripID: "t-1", after: nil)
        _ = try await channel.open(tripID: "t-1", after: 4)
        let opened = transport.opened.withLock { $0 }
        #expect(opened.map { $0.headers[HailHeader.authorization] } == ["Bearer token-1", "Bearer token-2"])
        #expect(opened.allSatisfy { !$0.url.contains("access_token") })
    }
}
