import Foundation
import HailCore
import HailProtocol
import HailTestSupport
import Testing

@testable import HailRider

/// A stream that holds its frames back (TCP waiting to retransmit a lost one) is reopened on a new connection
/// from the cursor (`RiderConfiguration.stallSeconds`), at once and without a resync; a reopening that brings
/// nothing newer makes the wait after it twice as long.
@Suite("RiderModel: a stalled stream")
@MainActor
struct RiderStreamStallTests {
    static func harness() -> RiderHarness {
        let api = FakeTripAPI(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 300))
        return RiderHarness(
            api: api, configuration: RiderConfiguration(reconnect: Backoff(jitter: .none), stallSeconds: 4))
    }

    @Test func aStreamSilentForFourSecondsWhileTheCarComesIsReopenedFromTheCursor() async throws {
        // The app's own wait is 3 s; 4 s here keeps the steps apart from the clock's.
        #expect(RiderConfiguration().stallSeconds == 3)
        let h = Self.harness()
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        let first = try await h.channel.connections.next()
        first.hello(at: 0)
        first.moved(Fixtures.position(seq: 7, at: 0, north: 300))
        try await h.until("position") { h.model.driverLocation?.seq == 7 }
        // Three seconds of silence: the stream is kept.
        await h.advance(3)
        #expect(await h.channel.connections.nextOrNil(within: 0.3) == nil)
        await h.advance(1)
        let second = try await h.channel.connections.next()
        #expect(second.after == 7)
        #expect(first.isClosedByClient)
        // No resync in between: the trip was read once, at launch.
        #expect(await h.api.count("active") == 1)
        second.hello(at: 4)
        second.moved(Fixtures.position(seq: 8, at: 4, north: 250))
        try await h.until("newer position") { h.model.driverLocation?.seq == 8 }
        // It brought a newer position: the next wait is four seconds again.
        await h.advance(4)
        let third = try await h.channel.connections.next()
        #expect(third.after == 8)
        // This one brings nothing newer in its four seconds: the wait after it is eight seconds.
        third.hello(at: 8)
        try await h.until("streaming again") { h.model.connection == .streaming }
        await h.advance(4)
        let fourth = try await h.channel.connections.next()
        #expect(fourth.after == 8)
        fourth.hello(at: 12)
        try await h.until("streaming once more") { h.model.connection == .streaming }
        await h.advance(4)
        await h.advance(3.5)
        #expect(await h.channel.connections.nextOrNil(within: 0.3) == nil)
        await h.advance(0.5)
        let fifth = try await h.channel.connections.next()
        #expect(fifth.after == 8)
        h.model.stop()
    }

    @Test func aCarWaitingAtThePickupIsNotAskedAgain() async throws {
        let api = FakeTripAPI(trip: Fixtures.trip(.driverArrived, version: 3))
        let h = RiderHarness(
            api: api, configuration: RiderConfiguration(reconnect: Backoff(jitter: .none), stallSeconds: 4))
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        let first = try await h.channel.connections.next()
        first.hello(at: 0)
        first.moved(Fixtures.position(seq: 7, at: 0))
        try await h.until("position") { h.model.driverLocation?.seq == 7 }
        await h.advance(4)
        await h.advance(4)
        #expect(await h.channel.connections.nextOrNil(within: 0.3) == nil)
        #expect(!first.isClosedByClient)
        h.model.stop()
    }
}
