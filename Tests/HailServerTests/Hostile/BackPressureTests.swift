import Foundation
import HailCore
import HailNet
import HailProtocol
import HailServer
import HailTesting
import Testing

/// A WebSocket client that never reads while the server pushes: positions are dropped oldest-first
/// (the queue stays at its limit), and once trip changes overflow their queue the server closes the
/// connection (4009) and forgets it, instead of holding its backlog in memory.
@Suite("Hostile: clients that never read", .serialized)
struct BackPressureTests {
    /// A rider's searching trip and a raw socket on its stream that has read the hello and stops reading.
    static func silentWatcher(on server: HostileServer) async throws -> (tripID: String, socket: RawSocket) {
        let rider = server.token(.rider, "silent")
        let created = await server.call(
            "POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: UUID().uuidString)
        let trip = try HailJSON.decode(Trip.self, from: created.body)
        let socket = try RawSocket(port: server.port, receiveBuffer: 4096)
        try socket.upgrade(path: "/v1/trips/\(trip.id)/live?access_token=\(rider)", port: server.port)
        _ = try await onItsOwnThread { try socket.readText(containing: #""type":"tripUpdated""#) }
        return (trip.id, socket)
    }

    static let padding = String(repeating: "x", count: 8192)

    @Test func positionsPushedAtAClientThatNeverReadsAreDroppedNotHoarded() async throws {
        let server = try await HostileServer.start()
        let (tripID, socket) = try await Self.silentWatcher(on: server)
        for seq in 0..<3000 {
            let text = #"{"type":"driverMoved","seq":\#(seq),"pad":"\#(Self.padding)"}"#
            await server.services.bus.publish(BusMessage(kind: .disposable, text: text), to: .trip(tripID))
        }
        // Every position is accounted for as written to the socket or dropped, but for at most the 16 the
        // disposable queue holds: with an unbounded queue this would never come true.
        let metrics = try await server.eventually { () -> HailNet.NetMetrics.Snapshot? in
            let snapshot = server.server.netMetrics
            let handled = snapshot.disposableDrops + snapshot.messagesSent - 2  // minus hello and tripUpdated
            return handled >= 3000 - NetServerConfiguration().disposableQueueLimit ? snapshot : nil
        }
        #expect(metrics.disposableDrops > 0)
        #expect(metrics.slowConsumerCloses == 0)
        #expect(metrics.openConnections == 1)
        #expect(try await server.services.trips.record(id: tripID)?.trip.state == .searching)
        _ = socket
        await server.stop()
    }

    @Test func tripChangesOverflowingTheQueueCloseTheConnectionWith4009() async throws {
        let server = try await HostileServer.start()
        let (tripID, socket) = try await Self.silentWatcher(on: server)
        // 64 MiB: more than the socket buffers of any kernel take, so the queue of 256 must overflow.
        let bigger = Self.padding + Self.padding
        for index in 0..<4000 {
            let text = #"{"type":"tripUpdated","n":\#(index),"pad":"\#(bigger)"}"#
            await server.services.bus.publish(BusMessage(kind: .essential, text: text), to: .trip(tripID))
        }
        let metrics = try await server.eventually { () -> HailNet.NetMetrics.Snapshot? in
            let snapshot = server.server.netMetrics
            return snapshot.slowConsumerCloses == 1 && snapshot.openConnections == 0 ? snapshot : nil
        }
        #expect(metrics.slowConsumerCloses == 1)
        // The connection is really gone: reading now drains what was in flight and ends.
        #expect(try await onItsOwnThread { socket.readUntilClosed() })
        #expect(try await server.services.trips.record(id: tripID)?.trip.state == .searching)
        await server.stop()
    }
}
