import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

@Suite("Nearby cars, history and metrics")
struct FleetTests {
    @Test func nearbyCarsAreFuzzedWithin150MetresAndCachedFor10Seconds() async throws {
        let h = await ServerHarness()
        let real = [Coordinate(lat: 43.7400, lng: 7.4280), Coordinate(lat: 43.7410, lng: 7.4290)]
        for (index, coordinate) in real.enumerated() { await h.onlineDriver("driver-\(index)", at: coordinate) }
        let rider = h.token(.rider, "rider-1")
        let first = try HailJSON.decode(
            [Coordinate].self, from: await h.call("GET", "/v1/drivers/nearby?lat=43.7396&lng=7.4276", token: rider).body
        )
        #expect(first.count == 2)
        for (shown, actual) in zip(first, real) {
            #expect(shown != actual)
            #expect(shown.distance(to: actual) <= 150.001)
        }
        // Another driver comes online, but the area's answer is cached for 10 s.
        await h.onlineDriver("driver-late", at: Coordinate(lat: 43.7398, lng: 7.4277))
        h.advance(seconds: 9.999)
        let cached = try HailJSON.decode(
            [Coordinate].self, from: await h.call("GET", "/v1/drivers/nearby?lat=43.7396&lng=7.4276", token: rider).body
        )
        #expect(cached == first)
        h.advance(seconds: 0.001)
        let fresh = try HailJSON.decode(
            [Coordinate].self, from: await h.call("GET", "/v1/drivers/nearby?lat=43.7396&lng=7.4276", token: rider).body
        )
        #expect(fresh.count == 3)
    }

    @Test func aResentPointIsCountedOnceInTheFareDistance() async throws {
        let h = await ServerHarness()
        try await RideFlowTests.tripOnTrip(h)
        h.advance(seconds: 60)
        let t1 = h.now
        await h.sendLocation("driver-1", seq: 40, at: Coordinate(lat: 43.7500, lng: 7.4276), t: t1)
        h.advance(seconds: 60)
        await h.sendLocation("driver-1", seq: 41, at: Coordinate(lat: 43.7600, lng: 7.4276))
        // The phone never saw the ack of 41 and resends its point as backlog under a new seq.
        await h.sendLocation("driver-1", seq: 42, at: Coordinate(lat: 43.7600, lng: 7.4276), backlog: true, t: h.now)
        // The two fixes, and where the car stood when the trip started (issue 14).
        #expect(try await h.services.history.history(tripID: "trip-1").count == 1 + 2)
    }

    @Test func metricsAreInThePrometheusTextFormat() async throws {
        let h = await ServerHarness()
        try await RideFlowTests.tripOnTrip(h)
        let response = await h.call("GET", "/metrics", token: h.token(.operator, "ops"))
        #expect(response.headers["Content-Type"] == "text/plain; version=0.0.4")
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.contains("# TYPE hail_trips gauge\n"))
        #expect(text.contains("hail_trips{state=\"onTrip\"} 1\n"))
        #expect(text.contains("hail_trips{state=\"searching\"} 0\n"))
        #expect(text.contains("hail_dispatch_offers_total{outcome=\"accepted\"} 1\n"))
        #expect(
            text.contains(
                "hail_location_updates_total{result=\"accepted\",app=\"unknown\",version=\"unknown\",device=\"unknown\"} 1\n"
            ))
    }

    @Test func locationUpdatesAreLabelledByTheClientThatSentThem() async throws {
        let h = await ServerHarness()
        await h.call("POST", "/v1/drivers/me/status", token: h.token(.driver, "d"), json: #"{"online": true}"#)
        let point = LocationPoint(lat: 43.74, lng: 7.428, accuracy: 5, heading: 0, speed: 0, t: h.now)
        await h.call(
            "POST", "/v1/drivers/me/locations", token: h.token(.driver, "d"),
            body: try HailJSON.encode(LocationBatch(seq: 1, points: [point])),
            headers: ["X-Hail-Client": "hail-driver/2.3.1 (iPhone15,2)"])
        let value = h.services.metrics.registry.value(
            "hail_location_updates_total",
            labels: ["result": "accepted", "app": "hail-driver", "version": "2.3.1", "device": "iPhone15,2"])
        #expect(value == 1)
    }
}
