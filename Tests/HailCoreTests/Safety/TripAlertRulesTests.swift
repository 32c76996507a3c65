import Foundation
import HailCore
import Testing

/// The trip rules for safety alerts and the rider's check-in: who may raise and answer, when, and what is kept.
@Suite("Trip alerts and check-ins, by the trip rules")
struct TripAlertRulesTests {
    typealias F = TripFixtures
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let deviation = TripAlert(kind: .routeDeviation, since: t0, raisedAt: t0.addingTimeInterval(12))

    @Test func theServerRaisesAnAlertOnATripUnderWayAsANewVersionInTheSameState() throws {
        let record = try TripRules.decide(.tripAlert(Self.deviation), by: .system, on: F.record(in: .onTrip)).get()
        #expect(record.trip.state == .onTrip)
        #expect(record.trip.version == 6)
        #expect(record.alert == Self.deviation)
        // Only the rider reads it: the trip every party sees has none.
        #expect(record.trip.alert == nil)
        #expect(record.tripForRider.alert == Self.deviation)
        #expect(TripIntent.tripAlert(Self.deviation).detail == "routeDeviation")
    }

    @Test func noAlertFromAnyoneButTheServerNorOnATripNotUnderWay() {
        for actor in [TripActor.rider(F.riderID), .driver(F.asha.id)] {
            let refused = TripRules.decide(.tripAlert(Self.deviation), by: actor, on: F.record(in: .onTrip))
            #expect(refused.failureReason == .forbidden)
        }
        for state in [TripState.driverAssigned, .driverArrived, .completed] {
            let refused = TripRules.decide(.tripAlert(Self.deviation), by: .system, on: F.record(in: state))
            #expect(refused.failureReason == .notAllowedInState)
        }
    }

    @Test func theRiderAnswersTheAlertAndMayTakeAnOKBack() throws {
        let alerted = try TripRules.decide(.tripAlert(Self.deviation), by: .system, on: F.record(in: .onTrip)).get()
        let rider = TripActor.rider(F.riderID)
        let ok = try TripRules.decide(.checkIn(.ok, at: Self.t0.addingTimeInterval(20)), by: rider, on: alerted).get()
        #expect(ok.alert?.answer == .ok)
        #expect(ok.alert?.answeredAt == Self.t0.addingTimeInterval(20))
        #expect(ok.trip.version == 7)
        // The same answer again changes nothing; "get help" after "I'm OK" stands.
        #expect(try TripRules.decide(.checkIn(.ok, at: Self.t0.addingTimeInterval(25)), by: rider, on: ok).get() == ok)
        let help = try TripRules.decide(.checkIn(.help, at: Self.t0.addingTimeInterval(30)), by: rider, on: ok).get()
        #expect(help.alert?.answer == .help)
        #expect(help.trip.version == 8)
        #expect(TripIntent.checkIn(.help, at: Self.t0).detail == "help")
    }

    @Test func noCheckInWithoutAnAlertNorFromAnyoneButTheTripsRider() throws {
        let rider = TripActor.rider(F.riderID)
        let none = TripRules.decide(.checkIn(.ok, at: Self.t0), by: rider, on: F.record(in: .onTrip))
        #expect(none.failureReason == .notAllowedInState)
        let alerted = try TripRules.decide(.tripAlert(Self.deviation), by: .system, on: F.record(in: .onTrip)).get()
        for actor in [TripActor.rider("someone-else"), .driver(F.asha.id), .system] {
            #expect(TripRules.decide(.checkIn(.help, at: Self.t0), by: actor, on: alerted).failureReason == .forbidden)
        }
    }
}

extension Result where Failure == TripRejection {
    /// The rejection's reason, nil on success.
    fileprivate var failureReason: TripRejection.Reason? {
        if case .failure(let rejection) = self { return rejection.reason }
        return nil
    }
}
