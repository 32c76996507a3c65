import Foundation
import HailCore
import HailProtocol
import HailServer
import HailTesting
import Synchronization
import Testing

/// Sends `bytes` to `socket` one byte per `interval` (each send scheduled by the previous one with
/// `asyncAfter`, a timer rather than a sleep) until all are sent, the server hangs up, or `stop()`.
final class Dribbler: Sendable {
    private let state = Mutex((sent: 0, stopped: false))
    private let bytes: [UInt8]
    private let socket: RawSocket
    private let interval: DispatchTimeInterval

    init(_ bytes: [UInt8], to socket: RawSocket, every interval: DispatchTimeInterval) {
        self.bytes = bytes
        self.socket = socket
        self.interval = interval
        scheduleNext()
    }

    private func scheduleNext() {
        DispatchQueue.global().asyncAfter(deadline: .now() + interval) { [self] in
            let index = state.withLock { $0.stopped ? bytes.count : $0.sent }
            guard index < bytes.count, (try? socket.send([bytes[index]])) != nil else { return }
            state.withLock { $0.sent += 1 }
            scheduleNext()
        }
    }

    /// Bytes the server has taken so far.
    var sent: Int { state.withLock { $0.sent } }

    func stop() { state.withLock { $0.stopped = true } }
}

/// Clients that send too slowly: the server drops them after its request timeout and keeps serving others.
@Suite("Hostile: slow clients", .serialized)
struct SlowClientTests {
    /// The request timeout the server is given. The test's own request to `/healthz` is held to it too: at 2 s it
    /// failed once (no answer) while the whole suite started at once on two cores, most likely not sent in time.
    /// 4 s is still far below libwebsockets' own 10 s for a request head.
    static let timeoutSeconds = 4

    @Test func aRequestHeadDribbledAByteAtATimeIsDroppedWhileOthersAreServed() async throws {
        let server = try await HostileServer.start { $0.requestTimeoutSeconds = Self.timeoutSeconds }
        let request = Array(
            ("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + String(repeating: "a", count: 200) + "\r\n\r\n")
                .utf8)
        let socket = try RawSocket(port: server.port)
        let dribbler = Dribbler(request, to: socket, every: .milliseconds(100))
        // Someone else is answered at once while the slow client holds its connection.
        #expect(await server.call("GET", "/healthz").status == 200)
        let closed = try await onItsOwnThread { socket.readUntilClosed() }
        dribbler.stop()
        #expect(closed, "the server kept a dribbling client for more than 20 s")
        // Cut off mid-request, after about the configured timeout's worth of bytes (10 a second), not
        // libwebsockets' own 10 s default for a request head.
        #expect(dribbler.sent < request.count)
        #expect(dribbler.sent <= 10 * (Self.timeoutSeconds + 4))
        #expect(await server.call("GET", "/healthz").status == 200)
        #expect(server.server.netMetrics.httpRequests == 2)
        await server.stop()
    }

    @Test func aBodyDribbledAByteAtATimeIsDroppedAndNothingIsApplied() async throws {
        let server = try await HostileServer.start { $0.requestTimeoutSeconds = Self.timeoutSeconds }
        let body = Array(#"{"online": true}"#.utf8) + Array(repeating: UInt8(ascii: " "), count: 200)
        let head =
            "POST /v1/drivers/me/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + server.token(.driver, "slow")
            + "\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
        let socket = try RawSocket(port: server.port)
        try socket.send(head)
        let dribbler = Dribbler(body, to: socket, every: .milliseconds(100))
        #expect(await server.call("GET", "/healthz").status == 200)
        let closed = try await onItsOwnThread { socket.readUntilClosed() }
        dribbler.stop()
        #expect(closed, "the server kept a dribbling client for more than 20 s")
        #expect(dribbler.sent < body.count)
        #expect(server.server.netMetrics.slowRequestDrops == 1)
        #expect(await server.services.fleet.status(driverID: "slow").online == false)
        await server.stop()
    }
}
