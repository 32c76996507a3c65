import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

/// A driver whose stream is down sends positions over HTTP; their answer carries the offer the stream would have.
@Suite("An open offer rides on the answer to a location batch sent over HTTP")
struct OfferOverHTTPTests {
    static let standing = Coordinate(lat: 43.7400, lng: 7.4280)

    static func ack(_ response: APIResponse) throws -> LocationAck {
        #expect(response.status == 200)
        return try HailJSON.decode(LocationAck.self, from: response.body)
    }

    @Test func aBatchIsAnsweredWithTheOpenOfferUntilTheDriverAccepts() async throws {
        let h = await ServerHarness()
        await h.onlineDriver("driver-1", at: Self.standing)
        #expect(try Self.ack(await h.sendLocation("driver-1", seq: 2, at: Self.standing)) == LocationAck(seq: 2))
        let offeredAt = h.now
        let requested = await h.call(
            "POST", "/v1/trips", token: h.token(.rider, "rider-1"), json: ServerHarness.requestBody(),
            key: UUID().uuidString)
        #expect(requested.status == 201)
        h.advance(seconds: 4)
        let offered = try Self.ack(await h.sendLocation("driver-1", seq: 3, at: Self.standing))
        #expect(offered.seq == 3)
        #expect(offered.offer?.trip.id == "trip-1")
        #expect(offered.offer?.trip.state == .searching)
        #expect(offered.offer?.trip.pickup == Coordinate(lat: 43.7396, lng: 7.4276))
        #expect(offered.offer?.expiresAt == offeredAt.addingTimeInterval(15))
        let accepted = await h.call(
            "POST", "/v1/trips/trip-1/accept", token: h.token(.driver, "driver-1"), key: UUID().uuidString)
        #expect(accepted.status == 200)
        #expect(try Self.ack(await h.sendLocation("driver-1", seq: 4, at: Self.standing)) == LocationAck(seq: 4))
    }

    @Test func aLapsedOfferIsNoLongerInTheAnswer() async throws {
        let h = await ServerHarness()
        await h.onlineDriver("driver-1", at: Self.standing)
        await h.call(
            "POST", "/v1/trips", token: h.token(.rider, "rider-1"), json: ServerHarness.requestBody(),
            key: UUID().uuidString)
        #expect(try Self.ack(await h.sendLocation("driver-1", seq: 2, at: Self.standing)).offer?.trip.id == "trip-1")
        h.advance(seconds: 15.5)
        #expect(try Self.ack(await h.sendLocation("driver-1", seq: 3, at: Self.standing)).offer == nil)
    }
}
