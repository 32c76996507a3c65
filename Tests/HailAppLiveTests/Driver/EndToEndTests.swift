import Foundation
import HailCore
import HailDriver
import HailProtocol
import HailServer
import HailTesting
import Testing

@Suite("DriverModel over the real transports against the real server", .serialized)
@MainActor
struct EndToEndTests {
    @Test func fromGoingOnlineToACompletedTripWithTheFare() async throws {
        let rig = try await DriverRig()
        defer { Task { await rig.stop() } }
        #expect(rig.model.screen.headline == .offline)
        let trip = try await rig.acceptATrip()
        #expect(rig.model.screen.headline == .drivingToPickup)
        #expect(rig.model.policy.interval == 2...4)
        try await rig.startTheTrip()
        #expect(rig.model.screen.headline == .onTrip)
        for step in 1...300 { try await rig.drive(to: DriverRig.along(step)) }
        try await rig.settled(advancing: 2)
        await rig.model.tap(.ended)
        #expect(rig.model.screen.headline == .ending)
        try await eventually(rig.model, "completed") { $0.trip?.state == .completed && $0.pendingAction == nil }
        #expect(rig.model.screen.headline == .completed)
        #expect(rig.model.trip?.fare == Money(amountMinor: 1001, currency: "EUR"))
        #expect(rig.model.activity == .waitingForTrip)
        let seen = try await rig.loopback.trip(trip.id, rider: rig.riderToken)
        #expect(seen.state == .completed)
        #expect(seen.fare == rig.model.trip?.fare)
        // 250 base + 5,004 m at 1.20/km (600) + 302 s at 0.30/min (151): the path driven, not the straight line,
        // from where the car stood when the trip started (issue 14: from its first fix on the trip before, 17 m
        // on: 4,987 m and 598).
        let history = try await rig.loopback.server.services.history.history(tripID: trip.id)
        #expect(history.count == 300 + 1)
        #expect(rig.model.trip?.receipt == TripReceipt(distanceMeters: 5004, durationSeconds: 302))
        #expect(history.allSatisfy { !$0.backlog })
        #expect(rig.model.pipeline.stats.keepAlives == 0)
    }
}
