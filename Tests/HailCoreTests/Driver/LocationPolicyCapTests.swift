import HailCore
import Testing

@Suite("A device family's location cap")
struct LocationPolicyCapTests {
    static let tenMetres = LocationPolicyCap(finestAccuracy: .nearestTenMeters, minimumDistanceFilterMeters: 20)

    @Test func aCapCoarsensTheBestPolicyAndMarksItDegraded() {
        let trip = LocationPolicy(activity: .onTrip, thermal: .nominal, lowPower: false)
        let capped = trip.capped(by: Self.tenMetres)
        #expect(capped.accuracy == .nearestTenMeters)
        #expect(capped.distanceFilter == 20)
        #expect(capped.interval == 2...4)
        #expect(capped.degraded)
        #expect(!capped.isOff)
    }

    @Test func aPolicyAlreadyCoarserKeepsItsOwnDialsAndItsOwnVerdict() {
        // Waiting is balanced with a 50 m filter: coarser than the cap on both dials, so nothing changes.
        let waiting = LocationPolicy(activity: .waitingForTrip, thermal: .nominal, lowPower: false)
        #expect(waiting.capped(by: Self.tenMetres) == waiting)
        #expect(!waiting.capped(by: Self.tenMetres).degraded)
        // A serious phone is coarser still, and was degraded already.
        let hot = LocationPolicy(activity: .onTrip, thermal: .serious, lowPower: false)
        #expect(hot.capped(by: Self.tenMetres) == hot)
        // One dial past the cap is enough to count as changed.
        let filterOnly = LocationPolicyCap(finestAccuracy: .best, minimumDistanceFilterMeters: 8)
        let trip = LocationPolicy(activity: .toPickup, thermal: .nominal, lowPower: false).capped(by: filterOnly)
        #expect(trip.accuracy == .best && trip.distanceFilter == 8 && trip.degraded)
    }

    @Test func offStaysOffAndNoCapIsNoChange() {
        #expect(LocationPolicy.off.capped(by: Self.tenMetres) == .off)
        let trip = LocationPolicy(activity: .onTrip, thermal: .nominal, lowPower: false)
        #expect(trip.capped(by: nil) == trip)
    }

    @Test func theStraightLineETAIsTheServersCoarseOne() {
        // 1.3 times the 1,111 m crow's flight at 30 km/h: 173 s, the server's straight-line provider's answer.
        let a = Coordinate(lat: 43.7396, lng: 7.4276)
        let b = Coordinate(lat: 43.7314, lng: 7.4197)
        #expect(StraightLineETA.seconds(from: a, to: b) == 173)
        #expect(StraightLineETA.seconds(from: a, to: a) == 0)
        #expect(StraightLineETA.seconds(from: Coordinate(lat: 91, lng: 0), to: b) == nil)
    }
}
