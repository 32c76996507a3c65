import Foundation
import HailCore
import HailProtocol
import HailTestSupport
import Testing

@testable import HailRider

@Suite("RiderModel on fakes and a manual clock")
@MainActor
struct RiderModelTests {
    static let eur = { (minor: Int) in Money(amountMinor: minor, currency: "EUR") }

    @Test func theAppKilledMidTripAndRelaunchedLandsOnTheSameTripAndTheLiveMap() async throws {
        let api = FakeTripAPI(trip: Fixtures.trip(.onTrip, version: 5, eta: 600))
        let cursors = InMemoryCursorStore()
        let first = RiderHarness(api: api, cursors: cursors)
        first.model.screenVisibilityChanged(true)
        await first.model.launch()
        let before = try await first.channel.connections.next()
        #expect(before.after == nil)
        before.hello(at: 0)
        before.moved(Fixtures.position(seq: 42, at: 0, north: 120), eta: 540)
        try await first.until("cursor 42") { first.model.cursor == 42 }
        // Killed: nothing of the first model survives but the durable cursor store (the cursor, and the ETA it
        // promised with seq 42: 9 min); the driver is in a tunnel, so the server's last published position is
        // still seq 42.
        #expect(
            await EtaAcrossGapsTests.storedPromise(cursors, state: .onTrip)
                == Fixtures.serverEpoch.addingTimeInterval(540))
        first.model.stop()
        await api.put(
            Fixtures.trip(.onTrip, version: 5, eta: 540, location: Fixtures.position(seq: 42, at: 0, north: 120)))

        let clock = ManualClock()
        clock.advance(by: .seconds(2))
        let relaunched = RiderHarness(api: api, cursors: cursors, clock: clock)
        relaunched.model.screenVisibilityChanged(true)
        await relaunched.model.launch()
        let after = try await relaunched.channel.connections.next()
        #expect(after.tripID == "trip-1")
        #expect(after.after == 42)
        #expect(relaunched.model.screen.phase == .onTrip)
        #expect(relaunched.model.screen.etaMinutes == 9)
        #expect(relaunched.model.screen.pin == .live)
        let marker = try #require(relaunched.model.marker(at: Fixtures.serverEpoch.addingTimeInterval(5)))
        #expect(marker.coordinate == Fixtures.position(seq: 42, at: 0, north: 120).coordinate)
        #expect(marker.seq == 42)
        // One resync per launch: the loop starts on the launch's answer instead of asking again.
        #expect(await api.count("active") == 2)
        relaunched.model.stop()
    }

    @Test func aSocketDropDuringTheTripResyncsAndMissesNoTripChange() async throws {
        let api = FakeTripAPI(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 300))
        let h = RiderHarness(api: api)
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        let first = try await h.channel.connections.next()
        first.hello(at: 0)
        first.moved(Fixtures.position(seq: 7, at: 0, north: 400), eta: 300)
        try await h.until("seq 7") { h.model.cursor == 7 }
        // The driver arrives while the socket is dead: that change is never sent on it.
        await api.put(Fixtures.trip(.driverArrived, version: 3))
        first.drop()
        try await h.until("waiting") { h.model.connection == .waiting }
        #expect(h.model.screen.phase == .driverAssigned)
        await h.advance(1)
        let second = try await h.channel.connections.next()
        #expect(second.after == 7)
        #expect(h.model.trip?.version == 3)
        #expect(h.model.screen.phase == .driverArrived)
        #expect(h.model.screen.driver?.plate == "HL-204-AB")
        #expect(h.model.screen.driver?.carModel == "Toyota Prius")
        #expect(await api.count("active") == 2)
        h.model.stop()
    }

    @Test func aTripUpdatedOlderThanTheOneShownChangesNothing() async throws {
        let h = RiderHarness(trip: Fixtures.trip(.driverArrived, version: 3))
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        let connection = try await h.channel.connections.next()
        connection.hello(at: 0)
        connection.send(
            .tripUpdated(Fixtures.trip(.driverAssigned, version: 2, eta: 120)),
            .tripUpdated(Fixtures.trip(.driverArrived, version: 3)))
        try await h.until("two stale") { h.model.staleTripUpdates == 2 }
        #expect(h.model.trip == Fixtures.trip(.driverArrived, version: 3))
        #expect(h.model.screen.phase == .driverArrived)
        #expect(h.model.screen.etaMinutes == nil)
        h.model.stop()
    }

    @Test func aSlowResyncAnswerOlderThanTheCancelShownChangesNothing() async throws {
        let api = FakeTripAPI(trip: Fixtures.trip(.driverAssigned, version: 2))
        let h = RiderHarness(api: api)
        await h.model.launch()
        await api.holdActive(true)
        h.model.screenVisibilityChanged(true)
        // The resync read version 2; its answer is still on the way when the rider cancels.
        let held = try await api.heldActive.next(within: 30, "held resync")
        await h.model.cancel()
        #expect(h.model.trip?.version == 3)
        #expect(h.model.screen.phase == .cancelled)
        held.resume()
        try await h.until("stale resync") { h.model.staleTripUpdates == 1 }
        try await h.until("loop ended") { h.model.connection == .idle }
        #expect(h.model.trip?.state == .cancelled)
        #expect(h.model.screen.phase == .cancelled)
        #expect(await h.channel.connections.pending == 0)
    }

    @Test func positionsOutOfOrderNeverMoveTheMarkerBack() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(10))
        let h = RiderHarness(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 300), clock: clock)
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        let connection = try await h.channel.connections.next()
        connection.hello(at: 10)
        connection.moved(Fixtures.position(seq: 1, at: 4, north: 0))
        connection.moved(Fixtures.position(seq: 3, at: 10, north: 60))
        connection.moved(Fixtures.position(seq: 2, at: 7, north: 30))
        connection.moved(Fixtures.position(seq: 3, at: 10, north: 60))
        connection.moved(Fixtures.position(seq: 1, at: 4, north: 0))
        try await h.until("three dropped") { h.model.droppedPositions == 3 }
        #expect(h.model.cursor == 3)
        #expect(h.model.driverLocation?.seq == 3)
        let seq1 = Fixtures.position(seq: 1, at: 4).coordinate
        let seq3 = Fixtures.position(seq: 3, at: 10, north: 60).coordinate
        // Both came at 10 s, when the car already rested on seq 1 (rendered 3 s in the past): it drives on
        // from there, halfway at 11.5 s and on seq 3 at 13 s, rather than leaping halfway at once.
        let atArrival = try #require(h.model.marker(at: Fixtures.serverEpoch.addingTimeInterval(10)))
        #expect(atArrival.coordinate == seq1)
        let halfway = try #require(h.model.marker(at: Fixtures.serverEpoch.addingTimeInterval(11.5)))
        #expect(halfway.coordinate == seq1.interpolated(to: seq3, fraction: 0.5))
        #expect(halfway.isMoving)
        let arrived = try #require(h.model.marker(at: Fixtures.serverEpoch.addingTimeInterval(13)))
        #expect(arrived.coordinate == seq3)
        #expect(arrived.seq == 3)
        #expect(!arrived.isMoving)
        #expect(h.model.screen.distanceToCarMeters == 60)
        h.model.stop()
    }

    @Test func aPosition21SecondsOldShowsLocatingWithNoMinutes() async throws {
        let h = RiderHarness(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 240))
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        let connection = try await h.channel.connections.next()
        connection.hello(at: 0)
        connection.moved(Fixtures.position(seq: 1, at: 0, north: 500), eta: 240)
        try await h.until("seq 1") { h.model.driverLocation?.seq == 1 }
        #expect(h.model.screen.pin == .live)
        #expect(h.model.screen.etaMinutes == 4)
        #expect(!h.model.screen.showsDelayedBanner)

        h.clock.advance(by: .seconds(15))
        h.model.refresh()
        #expect(h.model.screen.pin == .updating)
        #expect(h.model.screen.etaMinutes == 4)
        #expect(h.model.screen.showsDelayedBanner)

        h.clock.advance(by: .seconds(6))
        h.model.refresh()
        #expect(h.model.pinFreshness.age == 21)
        #expect(h.model.screen.pin == .locating)
        #expect(h.model.screen.etaMinutes == nil)
        #expect(h.model.screen.showsDelayedBanner)
        h.model.stop()
    }

    /// Drawing the screen only reads the model. (It used to move the ETA smoother: a screen drawn twice a second
    /// saw the minutes agree for a moment between two estimates and started the hold over, one drawn only on
    /// updates did not, and moved to 4 min at 69 s.)
    @Test func howOftenTheScreenIsDrawnChangesNothingItSays() async throws {
        // The same arrival, 240 s on, until 60 s; then estimates whose minutes disagree with the promise's only
        // for the first second after each (rounding), every 3 s.
        let updates: [(second: Int64, eta: Int)] = [
            (0, 240), (15, 225), (30, 210), (45, 195), (60, 181), (63, 181), (66, 181), (69, 181),
        ]
        func ride(drawingEvery interval: Int64?) async throws -> [RiderScreen] {
            let h = RiderHarness(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 240))
            h.model.screenVisibilityChanged(true)
            await h.model.launch()
            let connection = try await h.channel.connections.next()
            connection.hello(at: 0)
            var screens: [RiderScreen] = []
            var now: Int64 = 0
            for (index, update) in updates.enumerated() {
                while let interval, now + interval < update.second * 1000 {
                    now += interval
                    h.clock.advance(by: .milliseconds(interval))
                    h.model.refresh()
                }
                h.clock.advance(by: .milliseconds(update.second * 1000 - now))
                now = update.second * 1000
                let seq = Int64(index + 1)
                connection.moved(
                    Fixtures.position(seq: seq, at: Double(update.second), north: 500), eta: update.eta)
                try await h.until("seq \(seq)") { h.model.driverLocation?.seq == seq }
                screens.append(h.model.screen)
            }
            h.clock.advance(by: .milliseconds(72_000 - now))
            h.model.refresh()
            let last = h.model.screen
            for _ in 0..<100 {
                h.model.refresh()
                #expect(h.model.screen == last)
            }
            h.model.stop()
            return screens + [last]
        }
        let drawnOften = try await ride(drawingEvery: 500)
        let drawnOnUpdates = try await ride(drawingEvery: nil)
        #expect(drawnOften.map(\.etaMinutes) == [4, 4, 4, 4, 3, 3, 3, 3, 3])
        #expect(drawnOnUpdates == drawnOften)
    }

    @Test func thePhoneClockTwoMinutesOffChangesNoneOfTheAges() async throws {
        var screens: [[RiderScreen]] = []
        for skew in [0.0, -120, 120] {
            let h = RiderHarness(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 240), skew: skew)
            h.model.screenVisibilityChanged(true)
            await h.model.launch()
            let connection = try await h.channel.connections.next()
            connection.hello(at: 0)
            connection.moved(Fixtures.position(seq: 1, at: 0, north: 500), eta: 240)
            try await h.until("seq 1") { h.model.driverLocation?.seq == 1 }
            #expect(h.model.serverClockOffset == -skew)
            var seen = [h.model.screen]
            for step in [5.0, 10, 6] {
                h.clock.advance(by: .seconds(step))
                h.model.refresh()
                seen.append(h.model.screen)
            }
            #expect(h.model.pinFreshness.age == 21)
            screens.append(seen)
            h.model.stop()
        }
        #expect(screens[0].map(\.pin) == [.live, .live, .updating, .locating])
        #expect(screens[1] == screens[0])
        #expect(screens[2] == screens[0])
    }

    /// A relaunch measures the phone's clock on the REST resync, before any stream says hello.
    @Test func theRESTResyncAloneCorrectsAPhoneTwoMinutesBehind() async throws {
        let h = RiderHarness(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 240), skew: -120)
        let phoneNow = RiderHarness.phoneTime(h.clock, skew: -120)
        // 0.5 s round trip; the server stamped its answer halfway, two minutes ahead of the phone.
        await h.api.reportServerTime(
            ServerClock.Sample(
                sentAt: phoneNow, serverTime: phoneNow.addingTimeInterval(120.25),
                receivedAt: phoneNow.addingTimeInterval(0.5)))
        await h.model.launch()
        #expect(h.model.serverClockOffset == 120)
        #expect(h.model.serverNow == Fixtures.serverEpoch)
        h.model.stop()
    }

    @Test func aRequestWhoseFirstTwoAttemptsTimeOutCreatesExactlyOneTrip() async throws {
        let api = FakeTripAPI()
        await api.scriptRequests([.timeoutAfterCommit, .timeoutAfterCommit, .answer])
        let h = RiderHarness(api: api)
        let tap = Task {
            await h.model.requestRide(pickup: Fixtures.pickup, dropoff: Fixtures.dropoff, product: .economy)
        }
        await h.clock.sleepers(atLeast: 1)
        #expect(await api.count("request") == 1)
        #expect(h.model.screen.isRequesting)
        h.clock.advance(by: .milliseconds(999))
        #expect(h.clock.sleeperCount == 1)
        h.clock.advance(by: .milliseconds(1))
        await h.clock.sleepers(atLeast: 1)
        #expect(await api.count("request") == 2)
        h.clock.advance(by: .milliseconds(1999))
        #expect(h.clock.sleeperCount == 1)
        h.clock.advance(by: .milliseconds(1))
        await tap.value
        #expect(await api.tripsCreated == 1)
        let keys = await api.requestKeys
        #expect(keys.count == 3)
        #expect(Set(keys).count == 1)
        #expect(h.model.trip?.id == "trip-1")
        #expect(h.model.screen.phase == .searching)
        #expect(h.model.screen.canCancel)
        #expect(!h.model.screen.isRequesting)
        #expect(h.model.screen.problem == nil)
    }

    @Test func threeLostAttemptsShowAnErrorAndTheNextTapUsesANewKey() async throws {
        let api = FakeTripAPI()
        await api.scriptRequests([.timeoutBeforeCommit, .timeoutBeforeCommit, .timeoutBeforeCommit, .answer])
        let h = RiderHarness(api: api)
        let tap = Task {
            await h.model.requestRide(pickup: Fixtures.pickup, dropoff: Fixtures.dropoff, product: .economy)
        }
        await h.advance(1)
        await h.advance(2)
        await tap.value
        #expect(h.model.screen.problem == .requestFailed)
        #expect(h.model.screen.phase == .idle)
        #expect(await api.tripsCreated == 0)
        #expect(await api.count("active") == 1)
        await h.model.requestRide(pickup: Fixtures.pickup, dropoff: Fixtures.dropoff, product: .economy)
        let keys = await api.requestKeys
        #expect(keys.count == 4)
        #expect(Set(keys).count == 2)
        #expect(await api.tripsCreated == 1)
        #expect(h.model.screen.phase == .searching)
    }

    @Test func aTapWhoseAnswersWereAllLostShowsTheTripTheServerMade() async throws {
        let api = FakeTripAPI()
        await api.scriptRequests([.timeoutAfterCommit, .timeoutAfterCommit, .timeoutAfterCommit])
        let h = RiderHarness(api: api)
        let tap = Task {
            await h.model.requestRide(pickup: Fixtures.pickup, dropoff: Fixtures.dropoff, product: .economy)
        }
        await h.advance(1)
        await h.advance(2)
        await tap.value
        #expect(await api.tripsCreated == 1)
        #expect(h.model.trip?.id == "trip-1")
        #expect(h.model.screen.phase == .searching)
        #expect(h.model.screen.problem == nil)
    }

    @Test func thePickupETANeverShowsAsTheDropoffETA() async throws {
        let h = RiderHarness(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 240))
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        let connection = try await h.channel.connections.next()
        connection.hello(at: 0)
        connection.moved(Fixtures.position(seq: 1, at: 0, north: 300), eta: 60)
        try await h.until("seq 1") { h.model.driverLocation?.seq == 1 }
        #expect(h.model.screen.etaMinutes == 1)
        connection.send(
            .tripUpdated(Fixtures.trip(.driverArrived, version: 3, eta: 0)),
            .tripUpdated(Fixtures.trip(.onTrip, version: 4)))
        try await h.until("on trip") { h.model.trip?.version == 4 }
        #expect(h.model.screen.phase == .onTrip)
        #expect(h.model.screen.etaMinutes == nil)
        connection.moved(Fixtures.position(seq: 2, at: 3, north: 250), eta: 600)
        try await h.until("seq 2") { h.model.driverLocation?.seq == 2 }
        #expect(h.model.screen.etaMinutes == 10)
        h.model.stop()
    }

    @Test func theTripAndTheScreenChangeStateTogetherWhileThePromiseIsRead() async throws {
        let store = HeldPromiseStore()
        let h = RiderHarness(trip: Fixtures.trip(.driverArrived, version: 3), cursors: store)
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        let connection = try await h.channel.connections.next()
        connection.hello(at: 0)
        connection.send(.tripUpdated(Fixtures.trip(.onTrip, version: 4, eta: 600)))
        // The model is suspended reading what the on-trip leg promised before a kill.
        await store.untilAReadIsHeld()
        #expect(h.model.trip?.state == .onTrip)
        #expect(h.model.screen.phase == .onTrip)
        #expect(h.model.screen.etaMinutes == nil)
        await store.release()
        connection.moved(Fixtures.position(seq: 1, at: 0, north: 250), eta: 600)
        try await h.until("seq 1") { h.model.driverLocation?.seq == 1 }
        #expect(h.model.screen.phase == .onTrip)
        #expect(h.model.screen.etaMinutes == 10)
        h.model.stop()
    }

    @Test func cancelIsNotOfferedOnceTheTripHasStarted() async throws {
        let h = RiderHarness(trip: Fixtures.trip(.driverArrived, version: 3))
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        #expect(h.model.screen.canCancel)
        let connection = try await h.channel.connections.next()
        connection.hello(at: 0)
        connection.send(.tripUpdated(Fixtures.trip(.onTrip, version: 4, eta: 600)))
        try await h.until("on trip") { h.model.trip?.version == 4 }
        #expect(h.model.screen.phase == .onTrip)
        #expect(!h.model.screen.canCancel)
        await h.model.cancel()
        #expect(await h.api.count("cancel") == 0)
        h.model.stop()
    }

    @Test func cancelBeforePickupUsesOneKeyAndShowsCancelled() async throws {
        let h = RiderHarness(trip: Fixtures.trip(.searching, version: 1))
        await h.model.launch()
        #expect(h.model.screen.canCancel)
        await h.model.cancel()
        #expect(await h.api.cancelKeys.count == 1)
        #expect(h.model.screen.phase == .cancelled)
        #expect(!h.model.screen.canCancel)
    }

    @Test func aCancelTheTripHadOutrunShowsThatItMovedOn() async throws {
        let h = RiderHarness(trip: Fixtures.trip(.driverArrived, version: 3))
        await h.model.launch()
        #expect(h.model.screen.canCancel)
        // The trip starts on the server before the tap reaches it: refused (409), not retried.
        await h.api.put(Fixtures.trip(.onTrip, version: 4))
        await h.model.cancel()
        #expect(await h.api.cancelKeys.count == 1)
        #expect(h.model.screen.problem == .tripMovedOn)
        #expect(h.model.screen.phase == .driverArrived)
    }

    @Test func aRefusalOfItsOwnShowsTheServersCodeAndReason() async throws {
        let h = RiderHarness(trip: Fixtures.trip(.driverAssigned, version: 2))
        await h.model.launch()
        await h.api.refuseCancels(with: APIError(code: .forbidden, message: "trip-1 is not this rider's trip"))
        await h.model.cancel()
        #expect(h.model.screen.problem == .refused(code: .forbidden, reason: "trip-1 is not this rider's trip"))
        // The next tap starts clean: no problem while it is in flight, none once it succeeds.
        await h.api.refuseCancels(with: nil)
        await h.model.cancel()
        #expect(h.model.screen.problem == nil)
        #expect(h.model.screen.phase == .cancelled)
    }

    @Test func pricesOrACancelWithNoAnswerSayWhichFailed() async throws {
        let h = RiderHarness(trip: Fixtures.trip(.driverAssigned, version: 2))
        await h.model.launch()
        await h.api.setUnreachable(true)
        await h.model.loadEstimates(pickup: Fixtures.pickup, dropoff: Fixtures.dropoff)
        #expect(h.model.screen.problem == .pricesUnavailable)
        let tap = Task { await h.model.cancel() }
        await h.advance(1)
        await h.advance(2)
        await tap.value
        #expect(await h.api.cancelKeys.count == 3)
        #expect(h.model.screen.problem == .cancelFailed)
        #expect(h.model.screen.phase == .offline)
    }

    @Test func theStreamStopsWhenTheScreenIsHiddenAndResumesWithAResync() async throws {
        let api = FakeTripAPI(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 300))
        let h = RiderHarness(api: api)
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        let first = try await h.channel.connections.next()
        first.hello(at: 0)
        first.moved(Fixtures.position(seq: 3, at: 0, north: 200), eta: 300)
        try await h.until("seq 3") { h.model.cursor == 3 }

        h.model.screenVisibilityChanged(false)
        #expect(try await first.closes.next())
        #expect(first.isClosedByClient)
        #expect(h.model.connection == .idle)
        await api.put(Fixtures.trip(.driverArrived, version: 3))
        #expect(await api.count("active") == 1)
        #expect(await h.channel.connections.pending == 0)

        h.model.screenVisibilityChanged(true)
        let second = try await h.channel.connections.next()
        #expect(second.after == 3)
        #expect(await api.count("active") == 2)
        #expect(h.model.screen.phase == .driverArrived)
        h.model.stop()
    }

    @Test func whenTheStreamCannotBeHadTheTripIsPolled() async throws {
        let api = FakeTripAPI(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 300))
        let h = RiderHarness(api: api)
        h.channel.refuse(next: 100)
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        await h.advance(1)
        await h.advance(2)
        await h.advance(4)
        // Fourth failure: an 8 s wait, filled with a poll every 4 s.
        await h.clock.sleepers(atLeast: 1)
        #expect(h.model.connection == .polling)
        #expect(await api.count("active") == 4)
        await api.put(
            Fixtures.trip(
                .driverAssigned, version: 2, eta: 180, location: Fixtures.position(seq: 9, at: 11, north: 300)))
        #expect(await api.count("trip") == 0)
        await h.advance(4)
        try await h.until("polled") { h.model.driverLocation?.seq == 9 }
        #expect(await api.count("trip") == 1)
        #expect(await api.count("active") == 4)
        #expect(h.model.screen.etaMinutes == 3)
        #expect(h.model.screen.distanceToCarMeters == 300)
        h.model.stop()
    }

    @Test func estimatesShowEachProductsFareAndPickupTime() async {
        let h = RiderHarness()
        await h.model.loadEstimates(pickup: Fixtures.pickup, dropoff: Fixtures.dropoff)
        #expect(h.model.estimates.map(\.productID) == [.economy, .xl])
        #expect(h.model.estimates.map(\.fare) == [Self.eur(1850), Self.eur(2790)])
        #expect(h.model.estimates.map(\.etaSeconds) == [240, 420])
    }

    @Test func aRideThatEndedWhileTheAppWasAwayShowsItsFare() async throws {
        let api = FakeTripAPI(trip: Fixtures.trip(.onTrip, version: 5))
        let h = RiderHarness(api: api)
        await h.model.launch()
        #expect(h.model.screen.phase == .onTrip)
        await api.put(Fixtures.trip(.completed, version: 6, fare: Self.eur(1850)))
        h.model.screenVisibilityChanged(true)
        try await h.until("completed") { h.model.screen.phase == .completed }
        #expect(h.model.screen.fare == Self.eur(1850))
        #expect(h.model.connection == .idle)
    }
}
