import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

@Suite("A whole ride through the API")
struct RideFlowTests {
    @Test func fromRequestToCompletedFare() async throws {
        let h = await ServerHarness()
        let rider = h.token(.rider, "rider-1")
        await h.onlineDriver("driver-1", at: Coordinate(lat: 43.7400, lng: 7.4280))
        var driverStream = await TopicReader(h.services.bus, .driver("driver-1"))

        let estimates = await h.call(
            "POST", "/v1/estimates", token: rider,
            json: #"{"pickup": {"lat": 43.7396, "lng": 7.4276}, "dropoff": {"lat": 43.7314, "lng": 7.4197}}"#)
        #expect(estimates.status == 200)
        let quoted = try HailJSON.decode([Estimate].self, from: estimates.body)
        #expect(quoted.map(\.productID) == [.economy, .xl])
        #expect(quoted.map(\.fare.amountMinor) == [700, 1100])  // a 1.4 km hop costs the minimum fare

        let created = await h.call(
            "POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: UUID().uuidString)
        #expect(created.status == 201)
        let trip = try h.trip(from: created)
        #expect(trip.id == "trip-1")
        #expect(trip.state == .searching)
        #expect(trip.version == 1)

        // Dispatch offered it to the only driver around.
        #expect(await driverStream.nextType()?.type == "offer")
        let accepted = await h.call(
            "POST", "/v1/trips/trip-1/accept", token: h.token(.driver, "driver-1"), key: UUID().uuidString)
        #expect(accepted.status == 200)
        #expect(try h.trip(from: accepted).state == .driverAssigned)
        #expect(try h.trip(from: accepted).driver?.id == "driver-1")

        let driver = h.token(.driver, "driver-1")
        h.advance(seconds: 1)  // the next fix must be newer than the one that put the driver online
        for event in ["arrived", "started"] {
            let response = await h.call(
                "POST", "/v1/trips/trip-1/events", token: driver,
                json: #"{"event": "\#(event)", "idempotencyKey": "\#(UUID().uuidString)"}"#)
            #expect(response.status == 200, "\(event)")
        }
        // Five 0.018-degree steps north, three minutes apart: 5 x 2001.5 m = 10,008 m in 900 s.
        for step in 0...5 {
            if step > 0 { h.advance(seconds: 180) }
            let point = Coordinate(lat: 43.7396 + Double(step) * 0.018, lng: 7.4276)
            #expect(await h.sendLocation("driver-1", seq: Int64(10 + step), at: point).status == 200)
        }
        let ended = await h.call(
            "POST", "/v1/trips/trip-1/events", token: driver,
            json: #"{"event": "ended", "idempotencyKey": "\#(UUID().uuidString)"}"#)
        let completed = try h.trip(from: ended)
        #expect(completed.state == .completed)
        #expect(completed.version == 5)
        // 250 base + 10,062 m x 1.20/km (1207) + 900 s x 0.30/min (450) = 1907 EUR minor units: the 10,008 m of the
        // fixes on the trip and the 55 m from where the car stood when it started (issue 14; 1901 before).
        #expect(completed.fare == Money(amountMinor: 1907, currency: "EUR"))
        #expect(completed.receipt == TripReceipt(distanceMeters: 10_062, durationSeconds: 900))

        let audit = try await h.services.trips.events(tripID: "trip-1").map(\.intent)
        #expect(audit == ["request", "offerAccepted", "arrived", "started", "ended"])
        #expect(await h.call("GET", "/v1/trips/active", token: rider).status == 204)
    }

    @Test func theSameRequestSentThreeTimesWithOneKeyMakesOneTrip() async throws {
        let h = await ServerHarness()
        let rider = h.token(.rider, "rider-1")
        let key = UUID().uuidString
        var bodies: [Data] = []
        for _ in 0..<3 {
            let response = await h.call("POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: key)
            #expect(response.status == 201)
            bodies.append(response.body)
        }
        #expect(Set(bodies).count == 1)
        #expect(try await h.services.trips.activeRecords().map(\.trip.id) == ["trip-1"])
        #expect(h.services.metrics.registry.value("hail_idempotent_replays_total") == 2)
    }

    @Test func aKeyReusedWithAnotherBodyIs422AndChangesNothing() async throws {
        let h = await ServerHarness()
        let rider = h.token(.rider, "rider-1")
        let key = UUID().uuidString
        await h.call("POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: key)
        let reused = await h.call(
            "POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(productID: "xl"), key: key)
        #expect(reused.status == 422)
        #expect(h.error(from: reused)?.code == .idempotencyKeyReused)
        #expect(try await h.services.trips.activeRecords().map(\.trip.productID) == [.economy])
    }

    @Test func aSecondActiveTripIsRefused() async {
        let h = await ServerHarness()
        let rider = h.token(.rider, "rider-1")
        await h.call("POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: UUID().uuidString)
        let second = await h.call(
            "POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: UUID().uuidString)
        #expect(second.status == 409)
        #expect(
            h.error(from: second)?.message == "you already have an active trip trip-1; cancel it or wait for it to end")
        #expect(h.error(from: second)?.activeTripID == "trip-1")
    }

    @Test func aRiderCancelAfterTheStartIs409AndChangesNothing() async throws {
        let h = await ServerHarness()
        try await RideFlowTests.tripOnTrip(h)
        let before = try await h.services.trips.record(id: "trip-1")
        let cancel = await h.call(
            "POST", "/v1/trips/trip-1/cancel", token: h.token(.rider, "rider-1"), key: UUID().uuidString)
        #expect(cancel.status == 409)
        #expect(h.error(from: cancel)?.message == "a rider cannot cancel once the trip has started")
        #expect(try await h.services.trips.record(id: "trip-1") == before)
    }

    /// Request, accept, arrive and start: trip-1 of rider-1 with driver-1, on trip.
    static func tripOnTrip(_ h: ServerHarness) async throws {
        await h.onlineDriver("driver-1", at: Coordinate(lat: 43.7400, lng: 7.4280))
        await h.call(
            "POST", "/v1/trips", token: h.token(.rider, "rider-1"), json: ServerHarness.requestBody(),
            key: UUID().uuidString)
        let driver = h.token(.driver, "driver-1")
        let accepted = await h.call("POST", "/v1/trips/trip-1/accept", token: driver, key: UUID().uuidString)
        #expect(accepted.status == 200)
        for event in ["arrived", "started"] {
            await h.call(
                "POST", "/v1/trips/trip-1/events", token: driver,
                json: #"{"event": "\#(event)", "idempotencyKey": "\#(UUID().uuidString)"}"#)
        }
        #expect(try await h.services.trips.record(id: "trip-1")?.trip.state == .onTrip)
    }
}
