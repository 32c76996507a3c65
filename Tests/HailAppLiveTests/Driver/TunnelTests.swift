import Foundation
import HailCore
import HailDriver
import HailProtocol
import HailServer
import HailTesting
import Testing

@Suite("A tunnel on the way, against the real server", .serialized)
@MainActor
struct TunnelTests {
    @Test func twoMinutesWithoutStreamOrHTTPLoseNoPointAndMoveNoCar() async throws {
        let rig = try await DriverRig()
        defer { Task { await rig.stop() } }
        let trip = try await rig.acceptATrip()
        try await rig.startTheTrip()
        let watch = try await RiderWatch(
            loopback: rig.loopback, connector: rig.connector, tripID: trip.id, token: rig.riderToken)
        defer { watch.close() }
        for step in 1...10 { try await rig.drive(to: DriverRig.along(step)) }
        try await rig.settled(advancing: 2)

        await rig.channel.cut()
        var tunnel: [LocationPoint] = []
        for step in 11...130 {
            try await rig.drive(to: DriverRig.along(step))
            tunnel.append(rig.fix(DriverRig.along(step)))
        }
        try await eventually(rig.model, "buffered") {
            $0.link == .down && $0.pipeline.batcher.buffer.count == 120
        }
        #expect(rig.model.pipeline.batcher.thinnedCount == 0)

        // Still in the tunnel for 3 s without a fix, so the newest buffered fix is older than the 2 s
        // hold: a fresher one would rightly go out live as the car's current position.
        rig.clock.advance(by: .seconds(3))
        rig.network.set(up: true)
        for _ in 0..<60 where rig.model.link != .stream {
            rig.clock.advance(by: .seconds(1))
            try? await eventually(rig.model, within: 0.3, "reconnect") { $0.link == .stream }
        }
        #expect(rig.model.link == .stream)
        try await rig.settled()
        let after = DriverRig.along(131)
        try await rig.drive(to: after)
        try await rig.settled(advancing: 2)
        let sawLive = await withDeadline(60) {
            for await move in watch.stream where abs(move.coordinate.lat - after.lat) < 1e-6 { return true }
            return false
        }
        #expect(sawLive == true)

        let history = try await rig.loopback.server.services.history.history(tripID: trip.id)
        let backlogTimes = Set(history.filter(\.backlog).map(\.t))
        let tunnelTimes = Set(tunnel.map(\.t))
        #expect(tunnelTimes.count == 120)
        #expect(tunnelTimes.subtracting(backlogTimes).isEmpty)
        // 130 fixes driven, and where the car stood when the trip started (issue 14: the fare begins there).
        #expect(history.count == 131 + 1)
        let moved = watch.seen.map(\.coordinate)
        let carriedTunnelPoint = moved.contains { seen in
            tunnel.contains { abs($0.lat - seen.lat) < 1e-6 && abs($0.lng - seen.lng) < 1e-6 }
        }
        #expect(!carriedTunnelPoint)
        #expect(rig.model.pipeline.stats.backlogBatches >= 2)
    }
}
