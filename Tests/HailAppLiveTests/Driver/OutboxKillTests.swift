import Foundation
import HailAppStore
import HailCore
import HailDriver
import HailProtocol
import HailServer
import HailTesting
import Testing

@Suite("Trip ended in a tunnel, across app kills, real SQLite outbox", .serialized)
@MainActor
struct OutboxKillTests {
    @Test func tripEndedWithNoNetworkIsAppliedExactlyOnceAfterKillsAndALostAnswer() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("driver-\(UUID().uuidString).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let rig = try await DriverRig(store: try await SQLiteOutboxStore(path: path))
        defer { Task { await rig.stop() } }
        let trip = try await rig.acceptATrip()
        try await rig.startTheTrip()
        for step in 1...30 { try await rig.drive(to: DriverRig.along(step)) }
        try await rig.settled(advancing: 2)
        let before = try await rig.loopback.trip(trip.id, rider: rig.riderToken)
        #expect(before.state == .onTrip)

        // In the tunnel: the tap shows at once and waits on disk.
        await rig.channel.cut()
        await rig.model.tap(.ended)
        #expect(rig.model.screen.headline == .ending)
        try await eventually(rig.model, "first attempt failed") { $0.outbox.entries.first?.failedAttempts == 1 }
        let saved = try await SQLiteOutboxStore(path: path).load()
        // Every fix of the trip was acknowledged; the tap carries where the car stood at the start (the pickup), for a
        // server that could not read it then.
        #expect(saved?.outbox.pendingIntents.map(\.kind) == [.ended])
        #expect(saved?.outbox.pendingIntents.map(\.tripID) == [trip.id])
        #expect(saved?.outbox.pendingIntents.first?.path?.map(\.coordinate) == [DriverRig.pickup])
        let key = try #require(saved?.outbox.entries.first?.key)

        // Killed. Relaunched still in the tunnel: the saved trip and the pending tap come back.
        await rig.model.shutdown()
        rig.relaunch(store: try await SQLiteOutboxStore(path: path))
        await rig.model.start()
        #expect(rig.model.screen.headline == .ending)
        #expect(rig.model.trip?.state == .onTrip)
        // The stream's loss may have retried the tap once more before the kill (the HTTP link came up and failed):
        // what matters is that the relaunched app replays it, and that fails too.
        let restored = try #require(rig.model.outbox.entries.first?.failedAttempts)
        #expect(restored >= 1)
        try await eventually(rig.model, "replay failed") {
            $0.outbox.entries.first.map { $0.failedAttempts > restored } ?? false
        }
        #expect(rig.model.outbox.entries.first?.key == key)

        // Killed again. Out of the tunnel, the request lands but its answer is lost: the retry replays it.
        await rig.model.shutdown()
        rig.network.set(up: true)
        rig.network.loseNextAnswer()
        rig.relaunch(store: try await SQLiteOutboxStore(path: path))
        await rig.model.start()
        // The lost answer counts as a failure; the replay under the same key may follow at once.
        try await eventually(rig.model, "answer lost") { model in
            model.outbox.entries.first.map { $0.failedAttempts >= 1 } ?? true
        }
        for _ in 0..<40 where rig.model.lastSaved?.outbox.entries.isEmpty != true {
            rig.clock.advance(by: .seconds(1))
            // Generous: on a loaded 2-core machine the retry's HTTP round trip can take a second.
            try? await eventually(rig.model, within: 1.5, "retried") { $0.lastSaved?.outbox.entries.isEmpty == true }
        }
        #expect(rig.model.trip?.state == .completed)
        #expect(rig.model.screen.headline == .completed)
        let after = try await rig.loopback.trip(trip.id, rider: rig.riderToken)
        #expect(after.state == .completed)
        #expect(after.version == before.version + 1)
        let ended = try await rig.loopback.server.services.trips.events(tripID: trip.id).filter { $0.intent == "ended" }
        #expect(ended.count == 1)
        #expect(try await SQLiteOutboxStore(path: path).load()?.outbox.entries.isEmpty == true)
    }
}
