import Foundation
import HailAppDoubles
import HailCore
import HailDriver
import HailProtocol
import HailTestSupport
import HailTime
import Testing

/// The driver app coming back from a server outage (the fault suite's Redis pause and Redis restarted empty): the
/// stream reconnects as soon as the server answers over REST, and a status the server could not take is sent again
/// without waiting for a reconnect. The model on fakes and a manual clock.
@Suite("DriverModel after a server outage")
@MainActor
struct OutageRecoveryTests {
    static let fix = LocationPoint(
        lat: Fixture.pickup.lat, lng: Fixture.pickup.lng, accuracy: 8, heading: 90, speed: 0, t: Fixture.origin)

    /// A backoff of 30 s from the first failure, so a stream left to it would be back only after 30 s.
    static let longBackoff = Backoff(base: 30, multiplier: 1, cap: 30, jitter: .none)

    @Test func aBatchTakenOverHTTPAfterA4013BringsTheStreamBackWithinASecond() async throws {
        let rig = DriverModelTests(backoff: Self.longBackoff)
        try await rig.online()
        #expect(rig.channel.connects == 1)
        // The server's storage went away: it closes the stream with 4013, and positions go over HTTP.
        rig.channel.close(code: WebSocketCloseCode.reconnectLater.rawValue)
        try await eventually(rig.model, "on HTTP") { $0.link == .http }
        // Its storage is back: the next batch over HTTP is taken.
        rig.source.yield(Self.fix)
        try await eventually(rig.model, "taken over HTTP") {
            $0.pipeline.stats.batches == 1 && $0.pipeline.batcher.inFlight.isEmpty
        }
        #expect(await rig.api.log == ["locations 1"])
        #expect(rig.channel.connects == 1)
        // One second of the 30: the stream is back.
        rig.clock.advance(by: .seconds(1))
        try await eventually(rig.model, "stream back") { $0.link == .stream }
        #expect(rig.channel.connects == 2)
        #expect(rig.clock.now == ManualClock.Instant(offset: .seconds(1)))
    }

    @Test func aStatusAnswered503IsSentAgainAtItsRetryAfterWithoutAReconnect() async throws {
        let rig = DriverModelTests()
        try await rig.online()
        #expect(await rig.api.statuses == [DriverStatusRequest(online: true, degraded: false)])
        // Low Power makes the location degraded, which the app reports; the server's storage is away: 503.
        await rig.api.failStatuses(1, retryAfter: 2)
        rig.model.setLowPower(true)
        try await eventually(rig.model, "report failed") { $0.lastProblem?.hasPrefix("cannot report") == true }
        #expect(rig.model.reportedDegraded == false)
        // The server asked for 2 s; the retry goes within a quarter more, on the same stream.
        rig.clock.advance(by: .seconds(3))
        try await eventually(rig.model, "report taken") { $0.reportedDegraded == true }
        #expect(
            await rig.api.statuses == [
                DriverStatusRequest(online: true, degraded: false), DriverStatusRequest(online: true, degraded: true),
            ])
        #expect(await rig.api.statusAttempts.count == 3)
        #expect(rig.channel.connects == 1)
    }
}
