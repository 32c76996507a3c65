import Foundation
import HailCore
import HailDriver
import HailProtocol
import HailTestSupport
import Testing

/// A trip change is published once, to whoever is connected, and the driver stream replays only an active
/// trip: a rider's cancel made while the driver's socket was down reaches the driver only if the app asks.
@Suite("DriverModel and a cancellation it was never sent")
@MainActor
struct DriverModelMissedCancelTests {
    static let assigned = Fixture.trip("t6", .driverAssigned, version: 2)
    static let cancelled = Fixture.trip("t6", .cancelled, version: 3)
    static let nextOffer = TripOffer(trip: Fixture.trip("t7", .searching, version: 1), expiresAt: Fixture.origin + 60)

    /// Reconnects the rig's stream after it dropped, advancing the clock through the backoff.
    func reconnect(_ rig: DriverModelTests) async throws {
        let connects = rig.channel.connects
        for _ in 0..<40 where rig.channel.connects == connects {
            rig.clock.advance(by: .seconds(1))
            try? await eventually(rig.model, within: 0.3, "reconnected") { _ in rig.channel.connects > connects }
        }
        try await eventually(rig.model, "reconnected") { $0.link == .stream }
    }

    @Test func aReconnectShowsTheCancellationAndTheNextOffer() async throws {
        let rig = DriverModelTests(active: Self.assigned)
        try await rig.online()
        #expect(rig.model.screen.headline == .drivingToPickup)

        // The socket drops; the rider cancels meanwhile, published to nobody; the stream comes back.
        await rig.api.changedUnseen(Self.cancelled)
        await rig.channel.disconnect()
        try await eventually(rig.model, "stream lost") { $0.link == .http }
        try await reconnect(rig)

        try await eventually(rig.model, "the cancellation") { $0.trip?.state == .cancelled }
        #expect(rig.model.trip == Self.cancelled)
        #expect(rig.model.screen.headline == .cancelled)
        #expect(rig.model.screen.tripState == .cancelled)
        #expect(rig.model.activity == .waitingForTrip)
        #expect(await rig.api.reads == ["t6"])
        try await eventually(rig.model, "saved") { $0.lastSaved?.trip == Self.cancelled }

        // An older version arriving late changes nothing; the next offer is shown.
        rig.channel.push(.tripUpdated(Self.assigned))
        rig.channel.push(.offer(Self.nextOffer))
        try await eventually(rig.model, "the next offer") { $0.offer?.trip.id == "t7" }
        #expect(rig.model.trip == Self.cancelled)
        #expect(rig.model.screen.headline == .newOffer)
        #expect(rig.model.screen.offerTripID == "t7")
    }

    @Test func aDriverStandingStillSendsItsLastFixOnceFreeAgain() async throws {
        let rig = DriverModelTests(active: Self.assigned)
        try await rig.online()
        let fix = LocationPoint(
            lat: Fixture.pickup.lat, lng: Fixture.pickup.lng, accuracy: 8, heading: 90, speed: 0, t: Fixture.origin)
        rig.source.yield(fix)
        try await eventually(rig.model, "fix sent") {
            $0.pipeline.stats.batches == 1 && $0.pipeline.batcher.inFlight.isEmpty
        }

        // The server may have restarted and forgotten where the car stands: once the driver learns the trip
        // is over, the last fix goes again as a waiting driver's keep-alive, since no new one comes standing.
        await rig.api.changedUnseen(Self.cancelled)
        await rig.channel.disconnect()
        try await eventually(rig.model, "stream lost") { $0.link == .http }
        try await reconnect(rig)
        try await eventually(rig.model, "the cancellation") { $0.trip?.state == .cancelled }
        try await eventually(rig.model, "keep-alive made") { $0.pipeline.stats.keepAlives == 1 }
        // Stamped when it is made: the clock has moved in whole seconds from the model's origin.
        let madeAt = Fixture.origin + TimeInterval(rig.clock.now.offset.components.seconds)
        // Waiting holds a fix up to 10 s before it goes.
        rig.clock.advance(by: .seconds(10))
        try await eventually(rig.model, "keep-alive sent") {
            $0.pipeline.stats.batches == 2 && $0.pipeline.batcher.inFlight.isEmpty
        }
        #expect(rig.channel.sent.count == 2)
        let resent = try #require(rig.channel.sent.last?.points.first)
        #expect(resent.lat == fix.lat && resent.lng == fix.lng)
        #expect(resent.speed == 0)
        #expect(resent.t == madeAt)
        #expect(madeAt > fix.t)
    }

    @Test func anOfferWhileATripIsShownLearnsHowTheTripEndedAndShowsTheOffer() async throws {
        let rig = DriverModelTests(active: Self.assigned)
        try await rig.online()
        // The server offers trips only to free drivers: this one's trip ended without a word reaching it.
        await rig.api.changedUnseen(Self.cancelled)
        rig.channel.push(.offer(Self.nextOffer))
        try await eventually(rig.model, "the next offer") { $0.offer?.trip.id == "t7" }
        #expect(rig.model.trip == Self.cancelled)
        #expect(rig.model.screen.headline == .newOffer)
    }

    @Test func aRelaunchAfterTheCancellationShowsIt() async throws {
        let saved = DriverSavedState(
            outbox: Outbox(), batcher: LocationBatcher.Snapshot(nextSeq: 1, points: []), trip: Self.assigned,
            online: true)
        let rig = DriverModelTests(saved: saved)
        await rig.api.changedUnseen(Self.cancelled)
        try await rig.online()
        try await eventually(rig.model, "the cancellation") { $0.trip?.state == .cancelled }
        #expect(rig.model.trip == Self.cancelled)
        #expect(rig.model.screen.headline == .cancelled)
    }

    @Test func aTripNoLongerTheDriversIsDropped() async throws {
        let saved = DriverSavedState(
            outbox: Outbox(), batcher: LocationBatcher.Snapshot(nextSeq: 1, points: []), trip: Self.assigned,
            online: true)
        let rig = DriverModelTests(saved: saved)
        await rig.api.reassign("t6")
        try await rig.online()
        try await eventually(rig.model, "dropped") { $0.trip == nil }
        #expect(rig.model.screen.headline == .waitingForTrips)
        #expect(rig.model.activity == .waitingForTrip)
    }
}
