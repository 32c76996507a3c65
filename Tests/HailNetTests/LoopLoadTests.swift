import Foundation
import HailTesting
import Synchronization
import Testing

@testable import HailNet

/// Where accepted connections live: on the loop that accepted them, unless that loop holds more than its share.
@Suite struct LoopLoadTests {
    @Test func eightConnectionsAcceptedByOneLoopEndFourAndFour() {
        var load = LoopLoad(loops: 2)
        let placed = (0..<8).map { _ in load.place(acceptedOn: 1) }
        #expect(placed == [1, 0, 1, 0, 1, 0, 1, 0])
        #expect(load.counts == [4, 4])
    }

    @Test func connectionsSpreadByTheirPeersStayWhereTheyWereAccepted() {
        var load = LoopLoad(loops: 2)
        let placed = (0..<1_000).map { load.place(acceptedOn: $0 % 2) }
        #expect(placed == (0..<1_000).map { $0 % 2 })
        // Bursts within a sixteenth of all connections stay too: 100 more on loop 0 over 1,000.
        let burst = (0..<60).map { _ in load.place(acceptedOn: 0) }
        #expect(burst == Array(repeating: 0, count: 60))
        #expect(load.counts == [560, 500])
    }

    @Test func aSkewPastASixteenthIsEvenedOutAndClosedConnectionsAreCountedOff() {
        var load = LoopLoad(loops: 3)
        for _ in 0..<300 { _ = load.place(acceptedOn: 2) }
        let spread = load.counts
        #expect(spread.max()! - spread.min()! <= 300 / 16 + 1)
        #expect(spread.reduce(0, +) == 300)
        for _ in 0..<spread[0] { load.release(on: 0) }
        load.release(on: 0)
        #expect(load.counts == [0, spread[1], spread[2]])
        #expect(load.place(acceptedOn: 2) == 0)
    }

    @Test func eightConnectionsFromOneThreadAreServedByBothLoops() async throws {
        let holder = Mutex<NetServer?>(nil)
        var configuration = NetServerConfiguration()
        configuration.loopCount = 2
        let server = NetServer(
            configuration: configuration,
            respond: { _ in .now(.text("\(holder.withLock { $0 }?.currentLoopIndex ?? -1)")) })
        holder.withLock { $0 = server }
        let port = try server.start()
        let loops = try await onItsOwnThread {
            let sockets = try (0..<8).map { _ in try RawSocket(port: port) }
            return try sockets.map { socket in
                try socket.send("GET /which HTTP/1.1\r\nHost: x\r\n\r\n")
                return try socket.readResponse().text
            }
        }
        #expect(loops.filter { $0 == "0" }.count == 4)
        #expect(loops.filter { $0 == "1" }.count == 4)
        await server.shutdown()
    }
}
