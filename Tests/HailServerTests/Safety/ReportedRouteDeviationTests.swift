import Foundation
import HailCore
import HailServer
import Synchronization
import Testing

/// A car that leaves the route its driver's navigation reported is judged by the corridor alone: nearing the drop-off
/// on another street excuses leaving a plan the server guessed, not the way the car was told to go (issue 41: on
/// Monaco a wrong turn's street wound nearer the drop-off for 12 s, and its alarm waited that long).
@Suite("TripWatch: leaving a reported route while nearing the drop-off")
struct ReportedRouteDeviationTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let origin = Coordinate(lat: 43.7300, lng: 7.4200)
    /// The plan: due north from the origin, 2 km, to the drop-off.
    static let plan = [origin, at(north: 2000, east: 0)]
    static let dropoff = at(north: 2000, east: 0)

    /// Metres north of the origin and east of the plan.
    static func at(north: Double, east: Double) -> Coordinate {
        let metresPerDegree = Coordinate.earthRadiusMeters * .pi / 180
        return Coordinate(
            lat: origin.lat + north / metresPerDegree,
            lng: origin.lng + east / (metresPerDegree * cos(origin.lat * .pi / 180)))
    }

    /// The alerts raised as the car drifts east off the plan at 8 m/s for 20 s, then drives north towards the drop-off
    /// on a street 160 m east of the plan at 10 m/s: "kind since raisedAt", seconds from the start.
    static func alerts(reported: Bool) -> [String] {
        let watch = TripWatch(planner: { _, _, _ in nil })
        let raised = Mutex<[String]>([])
        watch.onAlert { _, alert in
            raised.withLock {
                $0.append(
                    "\(alert.kind) \(alert.since.timeIntervalSince(Self.t0)) \(alert.raisedAt.timeIntervalSince(Self.t0))"
                )
            }
        }
        var record = TripRecord(
            trip: Trip(
                id: "trip-1", state: .onTrip, pickup: Self.origin, dropoff: Self.dropoff, productID: .economy,
                version: 4),
            riderID: "rider-1")
        if reported { record.route = ReportedRoute(revision: 1, path: Self.plan, reportedAt: Self.t0) }
        watch.start(record, plan: Self.plan, now: Self.t0)
        for second in 0...60 {
            let position =
                second < 20
                ? Self.at(north: 0, east: Double(second) * 8) : Self.at(north: Double(second - 20) * 10, east: 160)
            let now = Self.t0.addingTimeInterval(Double(second))
            watch.observe(record, fixes: [TripWatch.Fix(position: position, takenAt: now)], now: now)
        }
        return raised.withLock { $0 }
    }

    @Test func leavingTheReportedRouteIsADeviationEvenNearingTheDropoff() {
        // Out of the corridor at 13 s (104 m), ten seconds later 160 m off: alarmed then.
        #expect(Self.alerts(reported: true) == ["routeDeviation 13.0 23.0"])
    }

    @Test func againstTheServersOwnPlanAStreetNearingTheDropoffStaysAnotherWayThere() {
        #expect(Self.alerts(reported: false) == [])
    }
}
