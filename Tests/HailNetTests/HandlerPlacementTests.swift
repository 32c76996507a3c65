import HailTesting
import HailThreads
import Synchronization
import Testing

@testable import HailNet

/// Where a handler's code runs: on the loop that read the request, except what it sends `offTheLoop`.
@Suite struct HandlerPlacementTests {
    /// A server whose handler answers with where each step of it ran: `loop` or `pool`.
    static func server(_ steps: @escaping @Sendable (@escaping @Sendable () -> String) async -> [String]) -> NetServer {
        let serverBox = Mutex<NetServer?>(nil)
        let place: @Sendable () -> String = {
            serverBox.withLock { $0 }?.isOnLoopThread == true ? "loop" : "pool"
        }
        let server = NetServer(http: { _ in .text(await steps(place).joined(separator: " ")) })
        serverBox.withLock { $0 = server }
        return server
    }

    static func twoRequests(port: Int) async throws -> (first: String, second: String) {
        try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            try socket.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
            let first = try socket.readResponse()
            try socket.send("GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
            return (first.text, try socket.readResponse().text)
        }
    }

    @Test func aHandlerRunsOnItsLoopAndItsHeavyWorkOnThePool() async throws {
        let server = Self.server { place in
            let before = place()
            let heavy = await offTheLoop { place() }
            return [before, heavy, place()]
        }
        let port = try server.start()
        let answers = try await Self.twoRequests(port: port)
        // Before and after the hop the handler is on its loop; the heavy part ran on none of the loops.
        #expect(answers.first == "loop pool loop")
        #expect(answers.second == "loop pool loop")
        await server.shutdown()
    }

    @Test func aHandlerThatNeverSuspendsRunsOnItsLoop() async throws {
        let server = Self.server { place in [place()] }
        let port = try server.start()
        let answers = try await Self.twoRequests(port: port)
        #expect(answers.first == "loop")
        #expect(answers.second == "loop")
        await server.shutdown()
    }

    /// A task a handler starts for `LoopAffinity.preferred` (a deadline race) stays on the handler's loop; outside a
    /// handler there is no loop to prefer.
    @Test func aTaskTheHandlerStartsForItsLoopRunsThere() async throws {
        let server = Self.server { place in
            let started = await Task(executorPreference: LoopAffinity.preferred) { place() }.value
            return [place(), started]
        }
        let port = try server.start()
        let answers = try await Self.twoRequests(port: port)
        #expect(answers.first == "loop loop")
        #expect(answers.second == "loop loop")
        #expect(LoopAffinity.executor == nil)
        await server.shutdown()
    }

    /// A bodiless POST answered at once (in place, but written on its writable callback: lws still reports the
    /// body's completion) and then a GET answered in place, on one connection: each handled once, in order.
    @Test func aBodilessPostAnsweredAtOnceThenAGetOnOneConnection() async throws {
        let calls = Mutex<[String]>([])
        let server = NetServer(http: { request in
            calls.withLock { $0.append("\(request.method) \(request.path)") }
            return .text("\(request.method) \(request.path)")
        })
        let port = try server.start()
        let before = server.metrics.snapshot()
        let answers = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            try socket.send("POST /v1/trips/t/decline HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
            let first = try socket.readResponse()
            try socket.send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n")
            let second = try socket.readResponse()
            try socket.send("GET /last HTTP/1.1\r\nHost: x\r\n\r\n")
            return [first.text, second.text, try socket.readResponse().text]
        }
        _ = await server.trackedSessions
        let after = server.metrics.snapshot()
        #expect(answers == ["POST /v1/trips/t/decline", "GET /after", "GET /last"])
        #expect(calls.withLock { $0 } == ["POST /v1/trips/t/decline", "GET /after", "GET /last"])
        #expect(after.acceptedConnections - before.acceptedConnections == 1)
        #expect(after.httpResponseWrites - before.httpResponseWrites == 3)
        await server.shutdown()
    }
}
