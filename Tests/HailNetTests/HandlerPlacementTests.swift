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
}
