import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

@Suite("Dispatch on a manual clock")
struct DispatchTests {
    /// Two drivers: near (about 60 m from the pickup) and far (about 1 km).
    static func twoDrivers(_ h: ServerHarness) async {
        await h.onlineDriver("near", at: Coordinate(lat: 43.7400, lng: 7.4280))
        await h.onlineDriver("far", at: Coordinate(lat: 43.7486, lng: 7.4276))
    }

    static func request(_ h: ServerHarness) async {
        await h.call(
            "POST", "/v1/trips", token: h.token(.rider, "rider-1"), json: ServerHarness.requestBody(),
            key: UUID().uuidString)
    }

    @Test func theNearestDriverIsOfferedFirstThenTheNextAfter15Seconds() async throws {
        let h = await ServerHarness()
        await Self.twoDrivers(h)
        var near = await TopicReader(h.services.bus, .driver("near"))
        var far = await TopicReader(h.services.bus, .driver("far"))
        await Self.request(h)
        let offer = try #require(await near.nextType())
        #expect(offer.type == "offer")
        guard case .offer(let sent) = try HailJSON.decode(DriverServerFrame.self, from: Data(offer.message.text.utf8))
        else {
            Issue.record("not an offer")
            return
        }
        #expect(sent.expiresAt == h.now.addingTimeInterval(15))
        #expect(await h.services.dispatcher.currentOffer(for: "near")?.tripID == "trip-1")

        h.advance(seconds: 14.999)
        await h.services.dispatcher.evaluate()
        #expect(await h.services.dispatcher.currentOffer(for: "far") == nil)
        h.advance(seconds: 0.001)
        await h.services.dispatcher.evaluate()
        #expect(await far.nextType()?.type == "offer")
        #expect(await h.services.dispatcher.currentOffer(for: "near") == nil)
        let late = await h.call(
            "POST", "/v1/trips/trip-1/accept", token: h.token(.driver, "near"), key: UUID().uuidString)
        #expect(late.status == 409)
        #expect(
            await h.call("POST", "/v1/trips/trip-1/accept", token: h.token(.driver, "far"), key: UUID().uuidString)
                .status == 200)
    }

    @Test func aDeclineOffersTheNextDriverAtOnce() async throws {
        let h = await ServerHarness()
        await Self.twoDrivers(h)
        var far = await TopicReader(h.services.bus, .driver("far"))
        await Self.request(h)
        let declined = await h.call("POST", "/v1/trips/trip-1/decline", token: h.token(.driver, "near"))
        #expect(declined.status == 204)
        #expect(await far.nextType()?.type == "offer")
        let again = await h.call("POST", "/v1/trips/trip-1/decline", token: h.token(.driver, "near"))
        #expect(again.status == 409)
    }

    @Test func nobodyAcceptingFor60SecondsIsNoDriversFound() async throws {
        let h = await ServerHarness()
        await h.onlineDriver("near", at: Coordinate(lat: 43.7400, lng: 7.4280))
        var riders = await TopicReader(h.services.bus, .trip("trip-1"))
        await Self.request(h)
        for _ in 0..<59 {
            h.advance(seconds: 1)
            await h.services.dispatcher.evaluate()
        }
        #expect(try await h.services.trips.record(id: "trip-1")?.trip.state == .searching)
        h.advance(seconds: 1)
        await h.services.dispatcher.evaluate()
        #expect(try await h.services.trips.record(id: "trip-1")?.trip.state == .noDriversFound)
        let created = try #require(await riders.nextType())
        #expect(!created.message.endsStream)
        let last = try #require(await riders.nextType())
        #expect(last.message.text.contains(#""state":"noDriversFound""#))
        #expect(last.message.endsStream)
        #expect(await h.services.dispatcher.searchingTripIDs.isEmpty)
    }

    /// A restart resumes the search where it was: under repeated restarts a trip must still give up at 60 s.
    @Test func aResumedSearchGivesUp60SecondsAfterTheRequestNotAfterTheRestart() async throws {
        let trips: any TripStore = MemoryTripStore()
        let before = await ServerHarness(trips: trips)
        await Self.request(before)
        let after = await ServerHarness(trips: trips)
        after.advance(seconds: 55)
        try await after.services.resume()
        #expect(await after.services.dispatcher.searchingTripIDs == ["trip-1"])
        after.advance(seconds: 4.999)
        await after.services.dispatcher.evaluate()
        #expect(try await trips.record(id: "trip-1")?.trip.state == .searching)
        after.advance(seconds: 0.001)
        await after.services.dispatcher.evaluate()
        #expect(try await trips.record(id: "trip-1")?.trip.state == .noDriversFound)
    }

    @Test func aDriverWhoCancelsSendsTheTripBackToSearchingAndToSomeoneElse() async throws {
        let h = await ServerHarness()
        await Self.twoDrivers(h)
        var far = await TopicReader(h.services.bus, .driver("far"))
        await Self.request(h)
        #expect(
            await h.call("POST", "/v1/trips/trip-1/accept", token: h.token(.driver, "near"), key: UUID().uuidString)
                .status == 200)
        let cancel = await h.call(
            "POST", "/v1/trips/trip-1/cancel", token: h.token(.driver, "near"), key: UUID().uuidString)
        #expect(try h.trip(from: cancel).state == .searching)
        #expect(try h.trip(from: cancel).driver == nil)
        #expect(await far.nextType()?.type == "offer")
        #expect(await h.services.dispatcher.currentOffer(for: "near") == nil)
    }

    @Test func aDriverIsOfferedOneTripAtATime() async throws {
        let h = await ServerHarness()
        await h.onlineDriver("near", at: Coordinate(lat: 43.7400, lng: 7.4280))
        await Self.request(h)
        await h.call(
            "POST", "/v1/trips", token: h.token(.rider, "rider-2"), json: ServerHarness.requestBody(),
            key: UUID().uuidString)
        #expect(await h.services.dispatcher.currentOffer(for: "near")?.tripID == "trip-1")
        #expect(await h.services.dispatcher.searchingTripIDs == ["trip-1", "trip-2"])
    }

    @Test func aDriverSilentFor60SecondsIsNotOffered() async throws {
        let h = await ServerHarness()
        await h.onlineDriver("near", at: Coordinate(lat: 43.7400, lng: 7.4280))
        h.advance(seconds: 60.001)
        await Self.request(h)
        #expect(await h.services.dispatcher.currentOffer(for: "near") == nil)
    }
}
