import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

/// A trip whose car leaves its plan, through the real server on loopback (the generated city's roads, the
/// services' manual clock): the rider's stream gets a `tripAlert`, the trip's log and `/metrics` have it, and the
/// rider's check-in is recorded.
@Suite("Trip alerts over loopback")
struct TripAlertOverLoopbackTests {
    static let pickup = ServerHarness.corner(2, 1)
    static let dropoff = ServerHarness.corner(2, 6)

    /// Fixes every 3 s from `from` to `to` along the street between them, 10 m/s.
    static func drive(
        _ h: ServerHarness, from: Coordinate, to: Coordinate, seq: inout Int64
    ) async {
        let heading = from.bearing(to: to)
        let steps = max(1, Int((from.distance(to: to) / 30).rounded(.up)))
        for step in 1...steps {
            h.advance(seconds: 3)
            let at = from.interpolated(to: to, fraction: Double(step) / Double(steps))
            #expect(await h.sendFix("driver-1", seq: seq, at: at, heading: heading).status == 200)
            seq += 1
        }
    }

    @Test func aCarThatLeavesItsPlanRaisesATripAlertAndTheRidersCheckInIsRecorded() async throws {
        var h = await ServerHarness(flags: "")
        var options = BackendServer.Options()
        options.port = 0
        options.log = nil
        let server = try await BackendServer.start(services: h.services, options: options)
        h.baseURL = "http://127.0.0.1:\(server.port)"
        defer { Task { await server.shutdown() } }
        let rider = h.token(.rider, "rider-1")
        let driver = h.token(.driver, "driver-1")
        try await h.assignedTrip(pickup: Self.pickup, dropoff: Self.dropoff, driverAt: Self.pickup)
        var riders = await TopicReader(h.services.bus, .trip("trip-1"))
        // No alert yet, nothing to answer.
        let early = await h.call(
            "POST", "/v1/trips/trip-1/check-in", token: rider, json: #"{"answer": "ok"}"#, key: UUID().uuidString)
        #expect(early.status == 409)
        for event in ["arrived", "started"] {
            let response = await h.call(
                "POST", "/v1/trips/trip-1/events", token: driver,
                json: #"{"event": "\#(event)", "idempotencyKey": "\#(UUID().uuidString)"}"#)
            #expect(response.status == 200)
        }
        // The plan runs up avenue 2; the car turns east on street 2 and keeps going, away from it.
        let plan = try #require(h.services.fleet.tripWatch?.plan(tripID: "trip-1"))
        #expect(RouteDeviationDetector.distance(from: ServerHarness.corner(2, 2), to: plan) < 1)
        #expect(RouteDeviationDetector.distance(from: ServerHarness.corner(5, 2), to: plan) > 300)
        var seq: Int64 = 10
        await Self.drive(h, from: Self.pickup, to: ServerHarness.corner(2, 2), seq: &seq)
        let turnedAt = h.now
        await Self.drive(h, from: ServerHarness.corner(2, 2), to: ServerHarness.corner(5, 2), seq: &seq)
        try await EarlyCloseTests.eventually(h, "the alert's count") { await Self.alerts(h) == 1 }

        // On the rider's stream: one essential tripAlert, saying when the car left the corridor.
        await h.services.bus.publish(BusMessage(kind: .essential, text: #"{"type":"sentinel"}"#), to: .trip("trip-1"))
        var alerts: [TripAlert] = []
        while let next = await riders.nextType(), next.type != "sentinel" {
            if case .tripAlert(let alert) = try HailJSON.decode(
                RiderServerFrame.self, from: Data(next.message.text.utf8))
            {
                #expect(next.message.kind == .essential)
                alerts.append(alert)
            }
        }
        let alert = try #require(alerts.first)
        #expect(alerts.count == 1)
        #expect(alert.kind == .routeDeviation)
        // Out of the 100 m corridor from the fourth fix after the turn (120 m east), alarmed 10 s later.
        #expect(alert.since == turnedAt.addingTimeInterval(12))
        #expect(alert.raisedAt == turnedAt.addingTimeInterval(24))

        // The rider's app reads it too, and answers; the driver never sees the answer.
        let read = try h.trip(from: await h.call("GET", "/v1/trips/trip-1", token: rider))
        #expect(read.alert == alert)
        h.advance(seconds: 5)
        let key = UUID().uuidString
        let answered = await h.call(
            "POST", "/v1/trips/trip-1/check-in", token: rider, json: #"{"answer": "help"}"#, key: key)
        #expect(answered.status == 200)
        #expect(try h.trip(from: answered).alert?.answer == .help)
        #expect(try h.trip(from: answered).alert?.answeredAt == h.now)
        let again = await h.call(
            "POST", "/v1/trips/trip-1/check-in", token: rider, json: #"{"answer": "help"}"#, key: key)
        #expect(again.body == answered.body)
        #expect(try h.trip(from: await h.call("GET", "/v1/trips/trip-1", token: driver)).alert == nil)
        let wrong = await h.call(
            "POST", "/v1/trips/trip-1/check-in", token: rider, json: #"{"answer": "maybe"}"#, key: UUID().uuidString)
        #expect(wrong.status == 400)
        #expect(
            await h.call(
                "POST", "/v1/trips/trip-1/check-in", token: h.token(.rider, "rider-2"), json: #"{"answer": "ok"}"#,
                key: UUID().uuidString
            ).status == 403)

        // The trip's log: the alert and the answer with their times, each under its own name.
        let log = try await h.services.trips.events(tripID: "trip-1").suffix(2)
        #expect(log.map(\.intent) == ["tripAlert", "checkIn"])
        #expect(log.map(\.detail) == ["routeDeviation", "help"])
        #expect(log.map(\.actor) == ["system", "rider:rider-1"])
        #expect(log.map(\.at) == [alert.raisedAt, h.now])
        let metrics = String(
            decoding: await h.call("GET", "/metrics", token: h.token(.operator, "ops")).body, as: UTF8.self)
        #expect(metrics.contains(#"hail_trip_alerts_total{kind="routeDeviation"} 1"#))
        #expect(metrics.contains(#"hail_trip_alerts_total{kind="longStop"} 0"#))
        #expect(metrics.contains(#"hail_trip_checkins_total{answer="help"} 1"#))
    }

    /// Trip alerts raised so far, as `/metrics` counts them.
    static func alerts(_ h: ServerHarness) async -> Int {
        Int(h.services.metrics.registry.total("hail_trip_alerts_total"))
    }
}
