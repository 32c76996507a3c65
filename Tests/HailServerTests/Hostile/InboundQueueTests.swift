import Foundation
import Testing

@testable import HailNet
@testable import HailServer

/// A client that sends faster than its handler reads: HailNet holds at most the inbound queue limit and
/// then closes the socket with 4029, instead of buffering without end.
@Suite("Hostile: inbound queue")
struct InboundQueueTests {
    static func connection(limit: Int?) -> WebSocketConnection {
        WebSocketConnection(
            id: 1,
            request: WebSocketRequest(path: "/", query: [], headers: HTTPHeaders(), remoteAddress: "", requestID: ""),
            limits: (essential: 4, disposable: 4), metrics: NetMetrics(), inboundLimit: limit, requestWrite: { _ in })
    }

    @Test func oneMessageOverTheLimitClosesWith4029AndIsNotDelivered() async {
        let connection = Self.connection(limit: 3)
        for index in 0..<3 { connection.deliver(.text("m\(index)")) }
        #expect(connection.pendingClose == nil)
        connection.deliver(.text("m3"))
        let close = connection.pendingClose
        #expect(close?.code == 4029)
        #expect(close?.reason == "more than 3 messages waiting to be read")
        #expect(close?.immediate == false)
        connection.finish(WebSocketCloseInfo(code: 4029, reason: "", byPeer: false))
        var delivered: [WebSocketMessage] = []
        for await message in connection.messages { delivered.append(message) }
        #expect(delivered == [.text("m0"), .text("m1"), .text("m2")])
    }

    @Test func withoutALimitEverythingWaits() async {
        let connection = Self.connection(limit: nil)
        for index in 0..<5000 { connection.deliver(.text("m\(index)")) }
        #expect(connection.pendingClose == nil)
        connection.finish(WebSocketCloseInfo(code: 1000, reason: "", byPeer: false))
        var count = 0
        for await _ in connection.messages { count += 1 }
        #expect(count == 5000)
    }

    @Test func theServersStreamIsBoundedTooAndClosesWith4029() async throws {
        let connection = Self.connection(limit: nil)
        for index in 0..<10 { connection.deliver(.text("m\(index)")) }
        let live = NetLiveConnection(connection, metrics: ServerMetrics(), time: .system(), inboundLimit: 3)
        // Nobody reads `live.inbound`; its pump moves three messages over and closes on the fourth.
        let deadline = ContinuousClock.now + .seconds(10)
        while connection.pendingClose == nil, ContinuousClock.now < deadline { await Task.yield() }
        #expect(connection.pendingClose?.code == 4029)
        #expect(connection.pendingClose?.reason == "more than 3 messages waiting to be read")
        var read: [LiveInbound] = []
        for await message in live.inbound { read.append(message) }
        #expect(read == [.text("m0"), .text("m1"), .text("m2")])
    }

    @Test func theServerDefaultIsAThousandAndTwentyFour() {
        #expect(NetServerConfiguration().inboundQueueLimit == 1024)
    }
}
