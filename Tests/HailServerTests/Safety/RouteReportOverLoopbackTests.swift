import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

/// The route a driver's navigation reports (`PUT /v1/trips/{id}/route`), through the real server on loopback (the
/// generated city's roads, the services' manual clock): it replaces the server's plan, so a car that follows it is
/// no deviation and one that leaves it is; it is logged, idempotent, the trip's driver's only, and checked.
@Suite("Reported routes over loopback")
struct RouteReportOverLoopbackTests {
    typealias Alerts = TripAlertOverLoopbackTests
    static let pickup = ServerHarness.corner(2, 1)
    static let dropoff = ServerHarness.corner(2, 6)
    /// Round the block: east on street 2 to avenue 5, up it, and back west to the drop-off.
    static let detour = [
        pickup, ServerHarness.corner(2, 2), ServerHarness.corner(5, 2), ServerHarness.corner(5, 6), dropoff,
    ]

    static func report(_ revision: Int64, _ path: [Coordinate]) -> String {
        try! HailJSON.encodeString(TripRouteReport(revision: revision, coordinates: path))
    }

    @Test func aCarOnTheRouteItsDriverReportedIsNoDeviationAndOneThatLeavesItIs() async throws {
        var h = await ServerHarness(flags: "")
        var options = BackendServer.Options()
        options.port = 0
        options.log = nil
        let server = try await BackendServer.start(services: h.services, options: options)
        h.baseURL = "http://127.0.0.1:\(server.port)"
        defer { Task { await server.shutdown() } }
        let driver = h.token(.driver, "driver-1")
        try await h.assignedTrip(pickup: Self.pickup, dropoff: Self.dropoff, driverAt: Self.pickup)
        // Not under way yet: nothing to judge a route against.
        let early = await h.call("PUT", "/v1/trips/trip-1/route", token: driver, json: Self.report(1, Self.detour))
        #expect(early.status == 409)
        for event in ["arrived", "started"] {
            let response = await h.call(
                "POST", "/v1/trips/trip-1/events", token: driver,
                json: #"{"event": "\#(event)", "idempotencyKey": "\#(UUID().uuidString)"}"#)
            #expect(response.status == 200)
        }
        let serverPlan = try #require(h.services.fleet.tripWatch?.plan(tripID: "trip-1"))
        #expect(RouteDeviationDetector.distance(from: ServerHarness.corner(5, 2), to: serverPlan) > 300)

        h.advance(seconds: 1)
        let reported = await h.call("PUT", "/v1/trips/trip-1/route", token: driver, json: Self.report(5, Self.detour))
        #expect(reported.status == 204)
        let sent = try #require(TripRouteReport(revision: 5, coordinates: Self.detour).coordinates)
        #expect(h.services.fleet.tripWatch?.plan(tripID: "trip-1") == sent)
        // The same report again, or an older one delivered late, changes nothing.
        let version = try #require(try await h.services.trips.record(id: "trip-1")?.trip.version)
        for revision: Int64 in [5, 4] {
            let again = await h.call(
                "PUT", "/v1/trips/trip-1/route", token: driver,
                json: Self.report(revision, [Self.pickup, Self.dropoff]))
            #expect(again.status == 204)
        }
        #expect(try await h.services.trips.record(id: "trip-1")?.trip.version == version)
        #expect(h.services.fleet.tripWatch?.plan(tripID: "trip-1") == sent)
        let log = try await h.services.trips.events(tripID: "trip-1").suffix(1)
        #expect(log.map(\.intent) == ["routeReported"])
        #expect(log.map(\.detail) == ["revision 5, 5 points"])
        #expect(log.map(\.actor) == ["driver:driver-1"])
        #expect(log.map(\.at) == [h.now])

        // Round the block as reported: no alarm. Then on east past avenue 5, off the reported route: one.
        var seq: Int64 = 10
        await Alerts.drive(h, from: Self.pickup, to: ServerHarness.corner(2, 2), seq: &seq)
        await Alerts.drive(h, from: ServerHarness.corner(2, 2), to: ServerHarness.corner(5, 2), seq: &seq)
        let leftAt = h.now
        await Alerts.drive(h, from: ServerHarness.corner(5, 2), to: ServerHarness.corner(7, 2), seq: &seq)
        try await EarlyCloseTests.eventually(h, "the alert's count") { await Alerts.alerts(h) == 1 }
        let alert = try #require(try await h.services.trips.record(id: "trip-1")?.alert)
        #expect(alert.kind == .routeDeviation)
        #expect(alert.since == leftAt.addingTimeInterval(12))
        let metrics = String(
            decoding: await h.call("GET", "/metrics", token: h.token(.operator, "ops")).body, as: UTF8.self)
        #expect(metrics.contains("hail_trip_routes_reported_total 1"))
    }

    @Test func aRouteIsTheTripsDriversOnlyAndABadOneIsRefusedNamingItsField() async throws {
        let h = await ServerHarness(flags: "")
        let driver = h.token(.driver, "driver-1")
        try await h.assignedTrip(pickup: Self.pickup, dropoff: Self.dropoff, driverAt: Self.pickup)
        for event in ["arrived", "started"] {
            await h.call(
                "POST", "/v1/trips/trip-1/events", token: driver,
                json: #"{"event": "\#(event)", "idempotencyKey": "\#(UUID().uuidString)"}"#)
        }
        let version = try #require(try await h.services.trips.record(id: "trip-1")?.trip.version)
        for token in [h.token(.rider, "rider-1"), h.token(.driver, "driver-2")] {
            let refused = await h.call("PUT", "/v1/trips/trip-1/route", token: token, json: Self.report(1, Self.detour))
            #expect(refused.status == 403)
        }
        let bad: [(String, String)] = [
            (
                #"{"revision": -1, "path": "\#(TripRouteReport(revision: 0, coordinates: Self.detour).path)"}"#,
                "revision"
            ),
            (#"{"revision": 1, "path": "_p~iF~ps|U"}"#, "path"),
            (#"{"revision": 1, "path": "~"}"#, "path"),
            (#"{"revision": 1, "path": "\#(String(repeating: "?", count: 16_001))"}"#, "path"),
            (#"{"revision": 1}"#, "path"),
        ]
        for (body, field) in bad {
            let refused = await h.call("PUT", "/v1/trips/trip-1/route", token: driver, json: body)
            #expect(refused.status == 400)
            #expect(h.error(from: refused)?.field == field)
        }
        let long = (0..<2_500).map { Coordinate(lat: 43.73 + Double($0) * 0.00001, lng: 7.42) }
        let thinned = try #require(TripRouteReport(revision: 1, coordinates: long).coordinates)
        #expect(thinned.count == ProtocolLimits.maxRoutePoints)
        #expect(thinned.first == long.first)
        #expect(thinned.last == long.last)
        #expect(try await h.services.trips.record(id: "trip-1")?.trip.version == version)
        #expect(try await h.services.trips.record(id: "trip-1")?.route == nil)
        let taken = await h.call("PUT", "/v1/trips/trip-1/route", token: driver, json: Self.report(1, long))
        #expect(taken.status == 204)
        #expect(try await h.services.trips.record(id: "trip-1")?.route?.path == thinned)
    }
}
