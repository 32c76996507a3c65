import Foundation
import HailTesting
import Synchronization
import Testing

@testable import HailNet

/// Opens a WebSocket by hand and then never reads again (nor answers pings).
func silentPeer(port: Int, path: String = "/silent") async throws -> RawSocket {
    try await onItsOwnThread {
        let socket = try RawSocket(port: port, receiveBuffer: 4096)
        try socket.send(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        let head = String(decoding: try socket.read(until: Array("\r\n\r\n".utf8)), as: UTF8.self)
        guard head.hasPrefix("HTTP/1.1 101") else { throw RawSocket.Failure(description: "no upgrade: \(head)") }
        return socket
    }
}

@Suite struct QueueAndKeepaliveTests {
    @Test func disposableQueueDropsOldestFirstAndCounts() {
        var queue = OutboundQueue(essentialLimit: 2, disposableLimit: 3)
        let messages = (0..<5).map { SharedMessage(text: "p\($0)") }
        var outcomes: [OutboundQueue.Outcome] = []
        for message in messages { outcomes.append(queue.enqueue(message, priority: .disposable)) }
        #expect(outcomes == [.queued, .queued, .queued, .droppedOldest, .droppedOldest])
        #expect(queue.enqueue(SharedMessage(text: "e0"), priority: .essential) == .queued)
        #expect(queue.enqueue(SharedMessage(text: "e1"), priority: .essential) == .queued)
        #expect(queue.enqueue(SharedMessage(text: "e2"), priority: .essential) == .overflow)
        var order: [String] = []
        while let next = queue.next() { order.append(String(decoding: next.bytes, as: UTF8.self)) }
        // Essential first, then the three newest positions in order.
        #expect(order == ["e0", "e1", "p2", "p3", "p4"])
    }

    @Test func writeStepsKeepAWriteScheduledWhileAMessageOrTheCloseIsLeft() {
        let wakes = Atomic<Int>(0)
        let connection = WebSocketConnection(
            id: 1,
            request: WebSocketRequest(path: "/", query: [], headers: HTTPHeaders(), remoteAddress: "", requestID: ""),
            limits: (essential: 4, disposable: 4), metrics: NetMetrics(),
            requestWrite: { _ in wakes.wrappingAdd(1, ordering: .relaxed) })
        var machine = WebSocketFrameStateMachine(
            maxMessageBytes: 10, keepalive: Keepalive(pingSeconds: 0, idleSeconds: 0), now: .now)
        let (first, second, third) = (SharedMessage(text: "a"), SharedMessage(text: "b"), SharedMessage(text: "c"))
        #expect(connection.send(first) && connection.send(second))
        // One wake-up for the batch.
        #expect(wakes.load(ordering: .relaxed) == 1)
        #expect(
            connection.takeWrite { machine.writable(queue: &$0, pendingClose: $1) }
                == .writeMessage(first, thenRequestWritable: true))
        #expect(connection.hasPendingWrites)
        #expect(
            connection.takeWrite { machine.writable(queue: &$0, pendingClose: $1) }
                == .writeMessage(second, thenRequestWritable: false))
        #expect(!connection.hasPendingWrites)
        #expect(connection.send(third))
        #expect(wakes.load(ordering: .relaxed) == 2)
        connection.close(code: 1000, reason: "bye")
        #expect(wakes.load(ordering: .relaxed) == 3)
        #expect(
            connection.takeWrite { machine.writable(queue: &$0, pendingClose: $1) }
                == .writeMessage(third, thenRequestWritable: true))
        #expect(
            connection.takeWrite { machine.writable(queue: &$0, pendingClose: $1) }
                == .closeNow(code: 1000, reason: "bye"))
        // The close stays pending until the connection is finished; nothing more is accepted.
        #expect(connection.hasPendingWrites)
        #expect(!connection.send(SharedMessage(text: "late")))
    }

    @Test func slowConsumerDropsDisposablesThenClosesWith4009() async throws {
        let capturing = try CapturingServer {
            $0.essentialQueueLimit = 4
            $0.disposableQueueLimit = 3
        }
        let socket = try await silentPeer(port: capturing.port)
        let info = try await within {
            let connection = await capturing.next()
            let payload = SharedMessage(binary: [UInt8](repeating: 7, count: 256 * 1024))
            var sent = 0
            while connection.droppedDisposableCount == 0 && sent < 100_000 {
                connection.send(payload, priority: .disposable)
                sent += 1
            }
            #expect(connection.droppedDisposableCount > 0)
            var accepted = 0
            while connection.send(payload, priority: .essential) && accepted < 100_000 { accepted += 1 }
            return await connection.closed()
        }
        #expect(info.code == 4009)
        #expect(info.reason == "slow consumer")
        let snapshot = capturing.server.metrics.snapshot()
        #expect(snapshot.disposableDrops > 0)
        #expect(snapshot.slowConsumerCloses == 1)
        #expect(snapshot.openConnections == 0)
        #expect(await capturing.server.trackedSessions == 0)
        _ = socket
        await capturing.server.shutdown()
    }

    @Test func silentPeerIsDroppedWhileAPongingClientStays() async throws {
        let capturing = try CapturingServer {
            $0.pingIntervalSeconds = 1
            $0.idleTimeoutSeconds = 2
        }
        let client = try WebSocketClient()
        try await within {
            let alive = try await client.connect(to: "ws://127.0.0.1:\(capturing.port)/alive")
            let aliveServerSide = await capturing.next()
            let socket = try await silentPeer(port: capturing.port)
            let silentServerSide = await capturing.next()
            // lws pings after 1 s of silence and hangs up after 2 s without a pong.
            let dropped = await silentServerSide.closed()
            #expect(dropped.byPeer == false)
            // The lws client answered the same pings, so its connection is still open.
            #expect(alive.closeInfo == nil)
            #expect(aliveServerSide.closeInfo == nil)
            aliveServerSide.send(text: "still here")
            var inbound = alive.messages.makeAsyncIterator()
            #expect(await inbound.next() == .text("still here"))
            _ = socket
        }
        await client.shutdown()
        await capturing.server.shutdown()
    }

    @Test func clientCanBindALocalSourceAddress() async throws {
        let capturing = try CapturingServer()
        let client = try WebSocketClient()
        try await within {
            _ = try await client.connect(to: "ws://127.0.0.1:\(capturing.port)/x", localAddress: "127.0.0.2")
            let serverSide = await capturing.next()
            #expect(serverSide.request.remoteAddress == "127.0.0.2")
        }
        await client.shutdown()
        await capturing.server.shutdown()
    }

    @Test func twoThousandConnectionsFromTwoSourceAddresses() async throws {
        let (server, port) = try makeServer()
        let client = try WebSocketClient()
        let count = 2000
        // Opened in waves of 250 so the listen backlog is never the thing under test; all stay open.
        let echoed = try await within(120) {
            var ok = 0
            for wave in stride(from: 0, to: count, by: 250) {
                ok += try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in wave..<min(count, wave + 250) {
                        group.addTask {
                            let source = index.isMultiple(of: 2) ? "127.0.0.2" : "127.0.0.3"
                            let connection = try await client.connect(
                                to: "ws://127.0.0.1:\(port)/echo", localAddress: source)
                            var inbound = connection.messages.makeAsyncIterator()
                            connection.send(text: "\(index)")
                            return await inbound.next() == .text("\(index)")
                        }
                    }
                    var echoedInWave = 0
                    for try await result in group where result { echoedInWave += 1 }
                    return echoedInWave
                }
            }
            return ok
        }
        #expect(echoed == count)
        #expect(server.metrics.snapshot().openConnections == count)
        await client.shutdown()
        #expect(client.metrics.snapshot().openConnections == 0)
        await server.shutdown()
    }

    @Test func oneSharedMessageFansOutToManyConnections() async throws {
        let capturing = try CapturingServer()
        let client = try WebSocketClient()
        try await within {
            var clients: [WebSocketConnection] = []
            var servers: [WebSocketConnection] = []
            for _ in 0..<20 {
                clients.append(try await client.connect(to: "ws://127.0.0.1:\(capturing.port)/fan"))
                servers.append(await capturing.next())
            }
            let shared = SharedMessage(text: "{\"type\":\"tripUpdated\"}")
            for connection in servers { connection.send(shared) }
            for connection in clients {
                var inbound = connection.messages.makeAsyncIterator()
                #expect(await inbound.next() == .text("{\"type\":\"tripUpdated\"}"))
            }
        }
        await client.shutdown()
        await capturing.server.shutdown()
    }
}
