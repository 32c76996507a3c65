import Foundation
import HailCore
import HailProtocol
import HailTestSupport
import Testing

@testable import HailRider

/// The smoother's hold is the rider's: a resync or a relaunched app must not start it over, or a dead zone
/// turns "5 min" into "6 min" at once where a connected app would have held it.
@Suite("The ETA on screen across a resync and a relaunch")
@MainActor
struct EtaAcrossGapsTests {
    /// Waits (without sleeping) until the store holds a promise for the leg other than `other`.
    static func storedPromise(_ cursors: InMemoryCursorStore, state: TripState, other: Date? = nil) async -> Date? {
        for _ in 0..<1000 {
            if let promise = await cursors.loadPromise(tripID: "trip-1", state: state), promise != other {
                return promise
            }
            await Task.yield()
        }
        return nil
    }

    @Test func aResyncKeepsTheHoldRunningFromWhenTheDisagreementBegan() async throws {
        let api = FakeTripAPI(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 300))
        let h = RiderHarness(api: api)
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        let first = try await h.channel.connections.next()
        first.hello(at: 0)
        first.moved(Fixtures.position(seq: 1, at: 0, north: 900), eta: 300)
        try await h.until("seq 1") { h.model.driverLocation?.seq == 1 }
        #expect(h.model.screen.etaMinutes == 5)
        // 3 s on, the server's estimate slips to 350 s (6 min): held against the 5 shown.
        h.clock.advance(by: .seconds(3))
        first.moved(Fixtures.position(seq: 2, at: 3, north: 880), eta: 350)
        try await h.until("seq 2") { h.model.driverLocation?.seq == 2 }
        #expect(h.model.screen.etaMinutes == 5)
        // The socket dies; the reconnect resyncs from the server, which says the same.
        await api.put(
            Fixtures.trip(.driverAssigned, version: 2, eta: 350, location: Fixtures.position(seq: 2, at: 3, north: 880))
        )
        first.drop()
        try await h.until("waiting") { h.model.connection == .waiting }
        await h.advance(1)
        let second = try await h.channel.connections.next()
        second.hello(at: 4)
        try await h.until("streaming") { h.model.connection == .streaming }
        #expect(h.model.screen.etaMinutes == 5)
        // The hold began at 3 s, not at the resync: 6 min shows at 11 s.
        h.clock.advance(by: .milliseconds(6900))
        h.model.refresh()
        #expect(h.model.screen.etaMinutes == 5)
        h.clock.advance(by: .milliseconds(100))
        h.model.refresh()
        #expect(h.model.screen.etaMinutes == 6)
        h.model.stop()
    }

    @Test func aRelaunchedAppShowsTheMinutesTheKilledOneShowedUntilTheChangeHasLastedTheHold() async throws {
        let api = FakeTripAPI(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 300))
        let cursors = InMemoryCursorStore()
        let clock = ManualClock()
        let first = RiderHarness(api: api, cursors: cursors, clock: clock)
        first.model.screenVisibilityChanged(true)
        await first.model.launch()
        let connection = try await first.channel.connections.next()
        connection.hello(at: 0)
        connection.moved(Fixtures.position(seq: 1, at: 0, north: 900), eta: 300)
        try await first.until("seq 1") { first.model.driverLocation?.seq == 1 }
        #expect(first.model.screen.etaMinutes == 5)
        #expect(
            await Self.storedPromise(cursors, state: .driverAssigned) == Fixtures.serverEpoch.addingTimeInterval(300))
        // Killed. 20 s later the app is back; the car has lost half a minute meanwhile: 330 s from 20 s.
        first.model.stop()
        clock.advance(by: .seconds(20))
        await api.put(
            Fixtures.trip(
                .driverAssigned, version: 2, eta: 330, location: Fixtures.position(seq: 3, at: 20, north: 700)))
        let relaunched = RiderHarness(api: api, cursors: cursors, clock: clock)
        relaunched.model.screenVisibilityChanged(true)
        await relaunched.model.launch()
        // 5 min as before the kill (a new smoother would show 6 at once), and 6 once it has lasted 8 s.
        #expect(relaunched.model.screen.etaMinutes == 5)
        clock.advance(by: .milliseconds(7900))
        relaunched.model.refresh()
        #expect(relaunched.model.screen.etaMinutes == 5)
        clock.advance(by: .milliseconds(100))
        relaunched.model.refresh()
        #expect(relaunched.model.screen.etaMinutes == 6)
        // The new promise is stored for the next relaunch: 330 s from the fix at 20 s.
        let old = Fixtures.serverEpoch.addingTimeInterval(300)
        #expect(
            await Self.storedPromise(cursors, state: .driverAssigned, other: old)
                == Fixtures.serverEpoch.addingTimeInterval(350))
        relaunched.model.stop()
    }
}
