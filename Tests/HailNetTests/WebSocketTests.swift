import Foundation
import HailTesting
import Synchronization
import Testing

@testable import HailNet

/// A server whose WebSocket handler hands each accepted connection to the test.
struct CapturingServer {
    let server: NetServer
    let port: Int
    let connections: AsyncStream<WebSocketConnection>

    init(_ configure: (inout NetServerConfiguration) -> Void = { _ in }) throws {
        var configuration = NetServerConfiguration()
        configure(&configuration)
        let (stream, continuation) = AsyncStream.makeStream(of: WebSocketConnection.self)
        server = NetServer(configuration: configuration, http: echoHandler) { _ in
            .accept { connection in
                continuation.yield(connection)
                _ = await connection.closed()
            }
        }
        port = try server.start()
        connections = stream
    }

    func next() async -> WebSocketConnection {
        var iterator = connections.makeAsyncIterator()
        return await iterator.next()!
    }
}

@Suite struct WebSocketTests {
    /// A TCP socket bound to a loopback port that never listens, and the port.
    static func boundNotListening() throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test func echoTextBinaryAndOneMegabyte() async throws {
        let (server, port) = try makeServer()
        let client = try WebSocketClient()
        try await within {
            let connection = try await client.connect(to: "ws://127.0.0.1:\(port)/echo?x=1")
            var inbound = connection.messages.makeAsyncIterator()
            connection.send(text: "hello")
            #expect(await inbound.next() == .text("hello"))
            connection.send(binary: [0, 1, 2, 255])
            #expect(await inbound.next() == .binary([0, 1, 2, 255]))
            let big = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            connection.send(binary: big)
            #expect(await inbound.next() == .binary(big))
            let bigText = String(repeating: "é-car-", count: 100_000)
            connection.send(text: bigText)
            #expect(await inbound.next() == .text(bigText))
            connection.close(code: 1000, reason: "done")
            let info = await connection.closed()
            #expect(info.code == 1000)
        }
        await client.shutdown()
        await server.shutdown()
    }

    @Test func serverCloseCodeAndReasonReachTheClient() async throws {
        let (server, port) = try makeServer()
        let client = try WebSocketClient()
        try await within {
            let connection = try await client.connect(to: "ws://127.0.0.1:\(port)/live")
            connection.send(text: "close:4403:not your trip")
            let info = await connection.closed()
            #expect(info == WebSocketCloseInfo(code: 4403, reason: "not your trip", byPeer: true))
            #expect(connection.send(text: "late") == false)
        }
        await client.shutdown()
        await server.shutdown()
    }

    @Test func rejectedUpgradeClosesWithTheHandlersCode() async throws {
        let (server, port) = try makeServer()
        let client = try WebSocketClient()
        try await within {
            let connection = try await client.connect(to: "ws://127.0.0.1:\(port)/live?reject=1")
            let info = await connection.closed()
            #expect(info.code == 4401)
            #expect(info.reason == "unauthorized")
        }
        await client.shutdown()
        await server.shutdown()
    }

    @Test func clientCloseAndHandshakeDetailsAreSeenByTheServer() async throws {
        let capturing = try CapturingServer()
        let client = try WebSocketClient()
        try await within {
            let connection = try await client.connect(
                to: "ws://127.0.0.1:\(capturing.port)/v1/trips/t1/live?after=42&access_token=tok",
                headers: [("Authorization", "Bearer abc"), ("X-Request-Id", "ws-1")])
            let serverSide = await capturing.next()
            #expect(serverSide.request.path == "/v1/trips/t1/live")
            #expect(serverSide.request.queryValue("after") == "42")
            #expect(serverSide.request.queryValue("access_token") == "tok")
            #expect(serverSide.request.headers["authorization"] == "Bearer abc")
            #expect(serverSide.request.requestID == "ws-1")
            connection.close(code: 4000, reason: "bye")
            let seen = await serverSide.closed()
            #expect(seen == WebSocketCloseInfo(code: 4000, reason: "bye", byPeer: true))
            _ = await connection.closed()
        }
        #expect(capturing.server.metrics.snapshot().totalConnections == 1)
        await client.shutdown()
        await capturing.server.shutdown()
    }

    @Test func tooBigInboundMessageClosesWith1009() async throws {
        let (server, port) = try makeServer { $0.maxInboundMessageBytes = 1000 }
        let client = try WebSocketClient()
        try await within {
            let connection = try await client.connect(to: "ws://127.0.0.1:\(port)/echo")
            connection.send(binary: [UInt8](repeating: 1, count: 5000))
            let info = await connection.closed()
            #expect(info.code == 1009)
        }
        await client.shutdown()
        await server.shutdown()
    }

    @Test func connectFailureThrowsAClearError() async throws {
        let client = try WebSocketClient()
        // A port bound and not listening, held for the test: a connection to it is refused. (A port that was just
        // free, closed again, could be taken by a server another test started meanwhile, and the connect worked.)
        let (holder, port) = try Self.boundNotListening()
        defer { close(holder) }
        await #expect {
            _ = try await within { try await client.connect(to: "ws://127.0.0.1:\(port)/x") }
        } throws: { error in
            (error as? NetError)?.code == .connectFailed && "\(error)".contains("127.0.0.1")
        }
        #expect(throws: NetError.self) { try WebSocketClient.parse("http://x/", headers: [], localAddress: nil) }
        await client.shutdown()
    }

    @Test func wssURLsAreTLSOnPort443UnlessTheyNameOneAndAnUnreadableCAFileIsRefusedAtStart() throws {
        let plain = try WebSocketClient.parse("ws://rides.example.com/v1/fleet/live", headers: [], localAddress: nil)
        #expect(!plain.secure && plain.port == 80)
        let secure = try WebSocketClient.parse("wss://rides.example.com/v1/fleet/live", headers: [], localAddress: nil)
        #expect(secure.secure && secure.port == 443 && secure.host == "rides.example.com")
        #expect(secure.pathAndQuery == "/v1/fleet/live")
        let ported = try WebSocketClient.parse("wss://127.0.0.1:8443/x?a=1", headers: [], localAddress: nil)
        #expect(ported.secure && ported.port == 8443 && ported.query == [QueryItem(name: "a", value: "1")])

        var configuration = WebSocketClientConfiguration()
        configuration.trust = .caFile("/nonexistent/hail-ca.pem")
        #expect {
            _ = try WebSocketClient(configuration: configuration)
        } throws: { error in
            "\(error)".contains("the trusted CA file /nonexistent/hail-ca.pem cannot be read")
        }
    }

    @Test func twoHundredConcurrentConnectionsAllEcho() async throws {
        let (server, port) = try makeServer()
        let client = try WebSocketClient()
        let count = 200
        let echoed = try await within(60) {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<count {
                    group.addTask {
                        let connection = try await client.connect(to: "ws://127.0.0.1:\(port)/echo")
                        var inbound = connection.messages.makeAsyncIterator()
                        connection.send(text: "car-\(index)")
                        let reply = await inbound.next()
                        connection.close()
                        _ = await connection.closed()
                        return reply == .text("car-\(index)")
                    }
                }
                var ok = 0
                for try await result in group where result { ok += 1 }
                return ok
            }
        }
        #expect(echoed == count)
        #expect(server.metrics.snapshot().totalConnections == count)
        await client.shutdown()
        await server.shutdown()
    }

    @Test func shutdownClosesOpenWebSocketsWithGoingAway() async throws {
        let (server, port) = try makeServer()
        let client = try WebSocketClient()
        let running = Task { try await server.run() }
        let info = try await within {
            let connection = try await client.connect(to: "ws://127.0.0.1:\(port)/echo")
            await server.shutdown()
            return await connection.closed()
        }
        try await running.value
        #expect(info.code == 1001)
        #expect(server.metrics.snapshot().openConnections == 0)
        await client.shutdown()
    }
}
