import Foundation
import HailAppDoubles
import HailCore
import HailDriver
import HailProtocol
import HailTestSupport
import HailTime
import Testing

/// The driver's stream as the server ends things: an offer withdrawn from the screen, and a close code obeyed
/// (`WebSocketCloseCode.shouldReconnect`).
@Suite("DriverModel: withdrawn offers and close codes")
@MainActor
struct DriverStreamCloseTests {
    let rig = DriverModelTests()

    @Test func aWithdrawnOfferLeavesTheScreenAtOnceAndOnlyThatOne() async throws {
        try await rig.online()
        rig.channel.push(
            .offer(TripOffer(trip: Fixture.trip("t1", .searching, version: 1), expiresAt: Fixture.origin + 15)))
        try await eventually(rig.model, "offer") { $0.offer != nil }
        // Another trip's withdrawal leaves this offer alone.
        rig.channel.push(.offerWithdrawn(tripID: "t0"))
        rig.channel.push(.ack(LocationAck(seq: 0)))
        try await eventually(rig.model, "frames read") { $0.offer?.trip.id == "t1" }
        rig.channel.push(.offerWithdrawn(tripID: "t1"))
        try await eventually(rig.model, "withdrawn") { $0.offer == nil }
        #expect(rig.model.screen.headline == .waitingForTrips)
        #expect(rig.model.screen.offerExpiresAt == nil)
    }

    @Test func aCloseThatSaysTryAgainLaterIsReconnectedAfterTheBackoff() async throws {
        try await rig.online()
        #expect(rig.channel.connects == 1)
        rig.channel.close(code: WebSocketCloseCode.reconnectLater.rawValue)
        try await eventually(rig.model, "stream lost") { $0.link != .stream }
        // The backoff is at most 30 s; the loop may not be asleep yet when a step is taken, so a step at a time.
        for _ in 0..<35 where rig.model.link != .stream {
            rig.clock.advance(by: .seconds(1))
            try? await eventually(rig.model, within: 1, "reconnected") { $0.link == .stream }
        }
        #expect(rig.model.link == .stream)
        #expect(rig.channel.connects == 2)
    }

    @Test func aCloseThatSaysDoNotReconnectStopsTheLoopUntilTheDriverGoesOnlineAgain() async throws {
        try await rig.online()
        rig.channel.close(code: WebSocketCloseCode.superseded.rawValue)
        try await eventually(rig.model, "refused") { $0.lastProblem?.contains("4010") == true }
        // Longer than any backoff: a loop still running would have connected again.
        for _ in 0..<35 {
            rig.clock.advance(by: .seconds(1))
            try? await eventually(rig.model, within: 0.2, "not reconnected") { $0.link == .stream }
        }
        #expect(rig.channel.connects == 1)
        #expect(rig.model.link != .stream)
        await rig.model.goOnline()
        try await eventually(rig.model, "stream up again") { $0.link == .stream }
        #expect(rig.channel.connects == 2)
    }
}

/// A trip change delivered again (the reconciler after a server restart) never takes the place of the trip the
/// driver is on.
@Suite("DriverModel: a change delivered again")
@MainActor
struct DriverRedeliveryTests {
    @Test func anotherTripsEndDeliveredAgainLeavesTheActiveTripOnScreen() async throws {
        let rig = DriverModelTests(active: Fixture.trip("t2", .driverAssigned, version: 2))
        try await rig.online()
        try await eventually(rig.model, "on t2") { $0.trip?.id == "t2" }
        // Every screen from now on, to see that none showed the old trip, however briefly.
        let screens = rig.model.changes()
        rig.channel.push(.tripUpdated(Fixture.trip("t1", .completed, version: 5)))
        rig.channel.push(.tripUpdated(Fixture.trip("t2", .driverArrived, version: 3)))
        try await eventually(rig.model, "t2 arrived") { $0.trip?.version == 3 }
        #expect(rig.model.trip?.id == "t2")
        #expect(rig.model.trip?.state == .driverArrived)
        var shown: [String?] = []
        for await screen in screens {
            shown.append(screen.tripID)
            if screen.tripState == .driverArrived { break }
        }
        #expect(!shown.contains("t1"))
        #expect(shown.last == "t2")
    }
}
