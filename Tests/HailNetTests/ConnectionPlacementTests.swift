import HailTesting
import Synchronization
import Testing

@testable import HailNet

/// Each accepted connection goes to the loop holding fewest: a client's few connections, or a fleet's streams,
/// share the node's loops within one of even, whatever the kernel would have hashed.
@Suite struct ConnectionPlacementTests {
    @Test func connectionsOpenedTogetherAlternateOverTheLoops() {
        var placement = LoopPlacement(loops: 2)
        let loops = (0..<8).map { _ in placement.place() }
        #expect(loops == [0, 1, 0, 1, 0, 1, 0, 1])
        #expect(placement.counts == [4, 4])
    }

    @Test func aLoopLeftLightByClosesTakesTheNextConnectionsUntilLevel() {
        var placement = LoopPlacement(loops: 3)
        for _ in 0..<9 { _ = placement.place() }
        for _ in 0..<3 { placement.release(on: 1) }
        #expect(placement.counts == [3, 0, 3])
        #expect((0..<3).map { _ in placement.place() } == [1, 1, 1])
        // Level again: ties go round robin from the loop after the last one chosen.
        #expect((0..<3).map { _ in placement.place() } == [2, 0, 1])
        #expect(placement.counts == [4, 4, 4])
    }

    @Test func twoClientThreadsOnTwoCoresHaveTheirConnectionsReadOnTheirOwnCores() {
        var placement = LoopPlacement(loops: 2)
        let loops = [0, 1, 1, 0, 0, 1, 1, 0].map { placement.place(preferring: $0) }
        #expect(loops == [0, 1, 1, 0, 0, 1, 1, 0])
        #expect(placement.counts == [4, 4])
    }

    @Test func connectionsAllFromOneCoreStillSpreadWithinTheSlack() {
        var placement = LoopPlacement(loops: 2)
        let loops = (0..<8).map { _ in placement.place(preferring: 0) }
        #expect(loops == [0, 0, 1, 0, 1, 0, 1, 0])
        #expect(placement.counts == [5, 3])
    }

    @Test func aPreferenceForNoLoopOfTheServerIsIgnored() {
        var placement = LoopPlacement(loops: 2)
        #expect([placement.place(preferring: 7), placement.place(preferring: -1)] == [0, 1])
    }

    @Test func oneLoopTakesEverythingAndAReleaseNeverGoesBelowZero() {
        var placement = LoopPlacement(loops: 1)
        #expect(placement.place() == 0)
        placement.release(on: 0)
        placement.release(on: 0)
        placement.release(on: 5)
        #expect(placement.counts == [0])
    }

    /// A server on 3 loops whose answer is the loop that read the request.
    static func server() throws -> (NetServer, Int) {
        let box = Mutex<NetServer?>(nil)
        var configuration = NetServerConfiguration()
        configuration.loopCount = 3
        configuration.pinsLoops = false
        let server = NetServer(
            configuration: configuration,
            respond: { _ in .now(.text("\(box.withLock { $0 }?.currentLoopIndex ?? -1)")) },
            webSocket: echoWebSocket)
        box.withLock { $0 = server }
        return (server, try server.start())
    }

    /// Kept-alive connections each answer one request; returns the sockets and the loop each was read on.
    static func open(_ count: Int, port: Int) async throws -> [(socket: RawSocket, loop: Int)] {
        try await onItsOwnThread {
            try (0..<count).map { _ in
                let socket = try RawSocket(port: port)
                try socket.send("GET /where HTTP/1.1\r\nHost: x\r\n\r\n")
                return (socket, Int(try socket.readResponse().text) ?? -1)
            }
        }
    }

    @Test func keptAliveConnectionsAreReadOnLoopsWithinOneOfEven() async throws {
        let (server, port) = try Self.server()
        let connections = try await Self.open(10, port: port)
        let perLoop = (0..<3).map { loop in connections.filter { $0.loop == loop }.count }
        #expect(perLoop.sorted() == [3, 3, 4])
        #expect(server.metrics.snapshot().connectionsPerLoop == perLoop)
        await server.shutdown()
    }

    @Test func webSocketsSpreadEvenlyOverTheLoops() async throws {
        let (server, port) = try Self.server()
        let sockets = try await onItsOwnThread {
            try (0..<30).map { _ in
                let socket = try RawSocket(port: port)
                try socket.upgrade(path: "/echo", port: port)
                return socket
            }
        }
        #expect(server.metrics.snapshot().connectionsPerLoop == [10, 10, 10])
        _ = sockets
        await server.shutdown()
    }

    @Test func theLoopWhoseConnectionsClosedTakesTheNextOnes() async throws {
        let (server, port) = try Self.server()
        var opened = try await Self.open(9, port: port)
        #expect(opened.map(\.loop).sorted() == [0, 0, 0, 1, 1, 1, 2, 2, 2])
        let kept = opened.filter { $0.loop != 1 }.map(\.socket)
        let closing = opened.filter { $0.loop == 1 }.map(\.socket)
        opened = []
        try await onItsOwnThread {
            for socket in closing {
                try socket.send("GET /where HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                _ = try socket.readResponse()
                #expect(socket.readUntilClosed())
            }
        }
        // `closing` is the last reference: its sockets close here, and the server counts them off once it reads the
        // end of each (polled with a hop onto every loop, never a timer).
        _ = consume closing
        let deadline = ContinuousClock.now + .seconds(10)
        while server.metrics.snapshot().connectionsPerLoop != [3, 0, 3], ContinuousClock.now < deadline {
            _ = await server.trackedSessions
        }
        #expect(server.metrics.snapshot().connectionsPerLoop == [3, 0, 3])
        let next = try await Self.open(3, port: port)
        #expect(next.map(\.loop) == [1, 1, 1])
        #expect(server.metrics.snapshot().connectionsPerLoop == [3, 3, 3])
        _ = (kept, next)
        await server.shutdown()
    }
}
