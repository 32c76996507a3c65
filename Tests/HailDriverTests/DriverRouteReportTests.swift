import Foundation
import HailAppDoubles
import HailCore
import HailDriver
import HailProtocol
import HailTestSupport
import HailTime
import Testing

/// The navigation's route on the trip under way goes to the server under a growing revision, retried until taken.
@Suite("DriverModel reports the navigation's route")
@MainActor
struct DriverRouteReportTests {
    static let route = [Fixture.pickup, Coordinate(lat: 43.7360, lng: 7.4240), Fixture.dropoff]

    @Test func aRouteIsSentUnderThePhonesClockAndRetriedAfterASecondWithoutAnAnswer() async throws {
        let clock = ManualClock()
        let api = FakeDriverAPI(active: Fixture.trip("t-route", .onTrip, version: 6))
        await api.failRoutes(1)
        let model = DriverModel(
            api: api, channel: ScriptedDriverChannel(serverTime: Fixture.origin), location: ScriptedLocationSource(),
            store: MemoryOutboxStore(), timeline: Timeline(clock: clock, origin: Fixture.origin),
            random: SplitMix64(seed: 1))
        await model.start()
        try await eventually(model, "the trip restored") { $0.trip?.state == .onTrip }
        model.navigationRouted(Self.route)
        try await eventually(model, "the first attempt failed") { $0.lastProblem?.hasPrefix("cannot send") == true }
        #expect(model.routeRevisionTaken == nil)
        clock.advance(by: .seconds(1))
        let revision = Int64(Fixture.origin.timeIntervalSince1970 * 1000)
        try await eventually(model, "the route taken") { $0.routeRevisionTaken == revision }
        let sent = await api.routeReports
        #expect(sent.map(\.tripID) == ["t-route", "t-route"])
        #expect(sent.map(\.report.revision) == [revision, revision])
        #expect(sent.first?.report.coordinates == TripRouteReport(revision: 0, coordinates: Self.route).coordinates)
        // A re-route a second later is numbered by the clock; another in the same millisecond still gets a greater one.
        model.navigationRouted(Array(Self.route.dropFirst()))
        try await eventually(model, "the re-route taken") { $0.routeRevisionTaken == revision + 1000 }
        model.navigationRouted(Array(Self.route.dropLast()))
        try await eventually(model, "the next re-route taken") { $0.routeRevisionTaken == revision + 1001 }
        #expect(await api.routeReports.count == 4)
    }
}
