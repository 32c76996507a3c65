import Foundation
import HailCore
import Testing

/// The trip rules for the route a driver's navigation reports: only the trip's driver, only under way, and only a
/// newer route replaces the one kept.
@Suite("Reported routes, by the trip rules")
struct RouteReportRulesTests {
    typealias F = TripFixtures
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let first = ReportedRoute(
        revision: 100, path: [Coordinate(lat: 43.73, lng: 7.42), Coordinate(lat: 43.74, lng: 7.42)], reportedAt: t0)
    static let second = ReportedRoute(
        revision: 200, path: [Coordinate(lat: 43.73, lng: 7.42), Coordinate(lat: 43.73, lng: 7.43)],
        reportedAt: t0.addingTimeInterval(30))

    @Test func theDriversRouteIsKeptAsANewVersionThatNoPartySees() throws {
        let record = try TripRules.decide(.routeReported(Self.first), by: .driver(F.asha.id), on: F.record(in: .onTrip))
            .get()
        #expect(record.route == Self.first)
        #expect(record.trip.state == .onTrip)
        #expect(record.trip.version == 6)
        #expect(TripIntent.routeReported(Self.first).name == "routeReported")
        #expect(TripIntent.routeReported(Self.first).detail == "revision 100, 2 points")
        // The route travels in the record only: neither the trip every party sees nor the rider's carries it.
        #expect(record.trip == F.record(in: .onTrip).trip.withVersion(6))
        #expect(record.tripForRider.alert == nil)
    }

    @Test func aNewerRouteReplacesItAndAnOlderOrTheSameOneChangesNothing() throws {
        let driver = TripActor.driver(F.asha.id)
        let first = try TripRules.decide(.routeReported(Self.first), by: driver, on: F.record(in: .onTrip)).get()
        let second = try TripRules.decide(.routeReported(Self.second), by: driver, on: first).get()
        #expect(second.route == Self.second)
        #expect(second.trip.version == 7)
        let late = try TripRules.decide(.routeReported(Self.first), by: driver, on: second).get()
        #expect(late == second)
        let twice = try TripRules.decide(.routeReported(Self.second), by: driver, on: second).get()
        #expect(twice == second)
    }

    @Test func noRouteFromAnyoneButTheTripsDriverNorOffATripUnderWayNorOfOnePoint() {
        for actor in [TripActor.rider(F.riderID), .driver("someone-else"), .system] {
            let refused = TripRules.decide(.routeReported(Self.first), by: actor, on: F.record(in: .onTrip))
            #expect(refused.failureReason == .forbidden)
        }
        for state in [TripState.driverAssigned, .driverArrived, .completed] {
            let refused = TripRules.decide(.routeReported(Self.first), by: .driver(F.asha.id), on: F.record(in: state))
            #expect(refused.failureReason == .notAllowedInState)
        }
        var dot = Self.first
        dot.path = [dot.path[0]]
        let refused = TripRules.decide(.routeReported(dot), by: .driver(F.asha.id), on: F.record(in: .onTrip))
        #expect(refused.failureReason == .invalid)
    }
}

extension Trip {
    fileprivate func withVersion(_ version: Int) -> Trip {
        var trip = self
        trip.version = version
        return trip
    }
}

extension Result where Failure == TripRejection {
    /// The rejection's reason, nil on success.
    fileprivate var failureReason: TripRejection.Reason? {
        if case .failure(let rejection) = self { return rejection.reason }
        return nil
    }
}
