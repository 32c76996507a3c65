import Foundation
import HailCore
import HailProtocol
import HailTestSupport
import Testing

@testable import HailRider

/// The rider's live loop obeys the server's close code (`WebSocketCloseCode.shouldReconnect`): storage trouble
/// (4013) is reconnected after the backoff; "trip not found" (4004) is not, after one resync.
@Suite("RiderModel: close codes")
@MainActor
struct RiderStreamCloseTests {
    @Test func aCloseSayingTryAgainLaterIsReconnected() async throws {
        let api = FakeTripAPI(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 300))
        let h = RiderHarness(api: api)
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        let first = try await h.channel.connections.next()
        first.hello(at: 0)
        try await h.until("streaming") { h.model.connection == .streaming }
        first.close(code: WebSocketCloseCode.reconnectLater.rawValue)
        try await h.until("waiting") { h.model.connection == .waiting }
        await h.advance(1)
        let second = try await h.channel.connections.next()
        #expect(second.tripID == "trip-1")
        #expect(await api.count("active") == 2)
        h.model.stop()
    }

    @Test func aCloseSayingTheTripIsNotFoundEndsTheLoopAfterOneResync() async throws {
        let api = FakeTripAPI(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 300))
        let h = RiderHarness(api: api)
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        let first = try await h.channel.connections.next()
        first.hello(at: 0)
        try await h.until("streaming") { h.model.connection == .streaming }
        first.close(code: WebSocketCloseCode.tripNotFound.rawValue)
        try await h.until("loop ended") { h.model.connection == .idle }
        // One resync after the close, and no stream opened again: the loop is over, nothing of it waits on the clock.
        #expect(await api.count("active") == 2)
        h.clock.advance(by: .seconds(60))
        #expect(await h.channel.connections.nextOrNil(within: 0.5) == nil)
        #expect(h.model.connection == .idle)
        h.model.stop()
    }
}
