import Foundation
import HailCore
import HailServer
import Synchronization
import Testing

/// The trip watch's runtime around the pure detectors: which trips it watches, what it hands its sink, and when
/// it lets a trip go.
@Suite("TripWatch: the trips under way and their alerts")
struct TripWatchTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let standing = Coordinate(lat: 43.7350, lng: 7.4230)

    static func record(_ state: TripState) -> TripRecord {
        TripRecord(
            trip: Trip(
                id: "trip-1", state: state, pickup: ServerHarness.pickup, dropoff: ServerHarness.dropoff,
                productID: .economy, version: 4),
            riderID: "rider-1")
    }

    @Test func withoutARoadPlanACarStandingFor3MinutesIsOneLongStopAndNoDeviation() {
        let watch = TripWatch(planner: { _, _, _ in nil })
        let raised = Mutex<[String]>([])
        watch.onAlert { tripID, alert in
            raised.withLock {
                $0.append(
                    "\(tripID) \(alert.kind) \(alert.since.timeIntervalSince(Self.t0)) "
                        + "\(alert.raisedAt.timeIntervalSince(Self.t0))")
            }
        }
        watch.start(Self.record(.onTrip), plan: nil, now: Self.t0)
        #expect(watch.plan(tripID: "trip-1") == nil)
        for second in stride(from: 0, through: 300, by: 5) {
            watch.observe(Self.record(.onTrip), at: Self.standing, now: Self.t0.addingTimeInterval(Double(second)))
        }
        #expect(raised.withLock { $0 } == ["trip-1 longStop 0.0 180.0"])
        // The trip ends: its watch goes with it.
        watch.observe(Self.record(.completed), at: Self.standing, now: Self.t0.addingTimeInterval(301))
        #expect(watch.count == 0)
    }

    @Test func aReportedRerouteReplacesThePlanAndAWatchNotFedFor10MinutesIsSwept() {
        let watch = TripWatch(planner: { _, _, _ in nil })
        let plan = [ServerHarness.pickup, ServerHarness.dropoff]
        watch.start(Self.record(.onTrip), plan: plan, now: Self.t0)
        let detour = [ServerHarness.pickup, Self.standing]
        watch.replan(tripID: "trip-1", path: detour)
        #expect(watch.plan(tripID: "trip-1") == detour)
        // Another trip begins to be watched 601 s later: the silent one is of no trip this node still hears about.
        var other = Self.record(.onTrip)
        other.trip.id = "trip-2"
        watch.observe(other, at: Self.standing, now: Self.t0.addingTimeInterval(601))
        #expect(watch.plan(tripID: "trip-1") == nil)
        #expect(watch.count == 1)
    }

    @Test func aReportedRouteBeatsTheServersPlanWhicheverCameFirstAndOnlyANewerOneReplacesIt() {
        let watch = TripWatch(planner: { _, _, _ in nil })
        let serverPlan = [ServerHarness.pickup, ServerHarness.dropoff]
        let reported = [ServerHarness.pickup, Self.standing, ServerHarness.dropoff]
        // The car's first position brings the trip's record with the driver's route: the watch takes it.
        var record = Self.record(.onTrip)
        record.route = ReportedRoute(revision: 7, path: reported, reportedAt: Self.t0)
        watch.observe(record, at: ServerHarness.pickup, now: Self.t0)
        #expect(watch.plan(tripID: "trip-1") == reported)
        // The start's plan, made meanwhile, and a server re-plan do not replace it; an older report neither.
        watch.start(record, plan: serverPlan, now: Self.t0.addingTimeInterval(1))
        #expect(watch.plan(tripID: "trip-1") == reported)
        watch.replan(tripID: "trip-1", path: serverPlan)
        watch.replan(tripID: "trip-1", path: serverPlan, revision: 6)
        #expect(watch.plan(tripID: "trip-1") == reported)
        // A newer route, in the record a later position brings (another node took the report), does.
        let rerouted = [Self.standing, ServerHarness.dropoff]
        record.route = ReportedRoute(revision: 8, path: rerouted, reportedAt: Self.t0)
        watch.observe(record, at: Self.standing, now: Self.t0.addingTimeInterval(2))
        #expect(watch.plan(tripID: "trip-1") == rerouted)
    }

    @Test func eachNewWatchLooksAtAFewOthersSoTheStaleOnesGoWithoutAScanOfAll() {
        let watch = TripWatch(planner: { _, _, _ in nil })
        func trip(_ number: Int) -> TripRecord {
            var record = Self.record(.onTrip)
            record.trip.id = "trip-\(number)"
            return record
        }
        for number in 1...20 { watch.start(trip(number), plan: nil, now: Self.t0) }
        #expect(watch.count == 20)
        // 601 s later each new watch looks at the 4 oldest in the queue: 5 new ones let all 20 old ones go.
        let later = Self.t0.addingTimeInterval(601)
        for number in 21...24 { watch.observe(trip(number), at: Self.standing, now: later) }
        #expect(watch.count == 24 - 16)
        watch.observe(trip(25), at: Self.standing, now: later)
        #expect(watch.count == 5)
    }
}
