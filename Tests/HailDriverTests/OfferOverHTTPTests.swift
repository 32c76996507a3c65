import Foundation
import HailAppDoubles
import HailCore
import HailDriver
import HailProtocol
import HailTestSupport
import HailTime
import Testing

/// A driver whose stream is down hears of an offer with the answer to a location batch sent over HTTP. The model on
/// fakes and a manual clock.
@Suite("DriverModel hears of an offer over HTTP while its stream is down")
@MainActor
struct OfferOverHTTPTests {
    static func fix(_ second: Double) -> LocationPoint {
        LocationPoint(
            lat: Fixture.pickup.lat + second / 10_000, lng: Fixture.pickup.lng, accuracy: 8, heading: 0, speed: 10,
            t: Fixture.origin.addingTimeInterval(second))
    }

    static func offer(_ tripID: String, lapsingAfter seconds: Double) -> TripOffer {
        TripOffer(
            trip: Fixture.trip(tripID, .searching, version: 1), expiresAt: Fixture.origin.addingTimeInterval(seconds))
    }

    @Test func anOfferInTheAnswerIsShownAndOneTurnedDownIsNotShownAgain() async throws {
        let rig = DriverModelTests(backoff: Backoff(base: 30, multiplier: 1, cap: 30, jitter: .none))
        try await rig.online()
        // The stream is closed with 4013 and refused from then on: positions go over HTTP.
        rig.channel.refuse(true)
        rig.channel.close(code: WebSocketCloseCode.reconnectLater.rawValue)
        try await eventually(rig.model, "on HTTP") { $0.link == .http }
        await rig.api.answerLocations(offering: Self.offer("trip-9", lapsingAfter: 15))
        rig.source.yield(Self.fix(0))
        try await eventually(rig.model, "offer shown") { $0.offer != nil }
        #expect(rig.model.offer == Self.offer("trip-9", lapsingAfter: 15))
        await rig.model.decline()
        #expect(await rig.api.declines == ["trip-9"])
        // The decline has not reached the server's offer yet: the next answer still carries it (a waiting driver's
        // fix goes within 10 s).
        rig.source.yield(Self.fix(1))
        try await eventually(rig.model, "fix held") { $0.pipeline.batcher.pending.count == 1 }
        rig.clock.advance(by: .seconds(10))
        try await eventually(rig.model, "second batch taken") { $0.pipeline.stats.batches == 2 }
        #expect(await rig.api.log == ["locations 1", "locations 1"])
        #expect(rig.model.offer == nil)
        // A new offer comes the same way.
        await rig.api.answerLocations(offering: Self.offer("trip-10", lapsingAfter: 60))
        rig.source.yield(Self.fix(2))
        try await eventually(rig.model, "fix held") { $0.pipeline.batcher.pending.count == 1 }
        rig.clock.advance(by: .seconds(10))
        try await eventually(rig.model, "new offer shown") { $0.offer?.trip.id == "trip-10" }
        #expect(rig.model.offer == Self.offer("trip-10", lapsingAfter: 60))
    }
}
