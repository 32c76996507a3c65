import Foundation
import HailCore
import HailProtocol
import Testing

@testable import HailServer

/// The operator feed's pure part: which frames a new reading of the fleet makes, and the live numbers.
@Suite("OperatorFeedState")
struct OperatorFeedStateTests {
    static let t0 = Date(timeIntervalSince1970: 1_796_220_000)

    static func car(_ id: String, seq: Int64, at seconds: Double, trip: (String, TripState)? = nil) -> OperatorCar {
        OperatorCar(
            driverID: id, driver: nil,
            location: DriverLocation(
                coordinate: Coordinate(lat: 43.7384 + Double(seq) * 0.0001, lng: 7.4246), heading: 0, seq: seq,
                receivedAt: t0.addingTimeInterval(seconds)), online: true, degraded: false, tripID: trip?.0,
            tripState: trip?.1)
    }

    static func trip(_ id: String, _ state: TripState, version: Int, driver: String?, eta: Int? = nil) -> OperatorTrip {
        OperatorTrip(
            id: id, state: state, version: version, pickup: Coordinate(lat: 43.7396, lng: 7.4276),
            dropoff: Coordinate(lat: 43.7314, lng: 7.4197), riderID: "rider-1", driverID: driver, etaSeconds: eta)
    }

    @Test func theFirstReadingIsTheSnapshotAndAQuietTickSendsOnlyTheNumbers() {
        var state = OperatorFeedState()
        let first = state.advance(
            cars: [Self.car("d1", seq: 1, at: 0)], trips: [], ended: [:], now: Self.t0, reconnects: 0,
            path: { _, _ in nil })
        #expect(first.changed == nil)
        #expect(first.moved == nil)
        let quiet = state.advance(
            cars: [Self.car("d1", seq: 1, at: 0)], trips: [], ended: [:], now: Self.t0.addingTimeInterval(1),
            reconnects: 0, path: { _, _ in nil })
        #expect(quiet.changed == nil)
        #expect(quiet.moved == nil)
        guard case .fleetStats(_, let stats) = quiet.stats else {
            Issue.record("\(quiet.stats)")
            return
        }
        #expect(stats.driversOnline == 1)
    }

    @Test func aMoveCarriesItsPathAndItsTripsETAAndAnOlderTripVersionIsIgnored() {
        var state = OperatorFeedState()
        _ = state.advance(
            cars: [Self.car("d1", seq: 1, at: 0, trip: ("t1", .driverAssigned))],
            trips: [Self.trip("t1", .driverAssigned, version: 3, driver: "d1", eta: 300)], ended: [:], now: Self.t0,
            reconnects: 0, path: { _, _ in nil })
        let moved = Self.car("d1", seq: 2, at: 1, trip: ("t1", .driverAssigned))
        let delta = state.advance(
            cars: [moved], trips: [Self.trip("t1", .driverAssigned, version: 2, driver: "d1", eta: 240)], ended: [:],
            now: Self.t0.addingTimeInterval(1), reconnects: 0, path: { _, _ in "_p~iF~ps|U" })
        #expect(delta.changed == nil, "version 2 is not newer than 3")
        #expect(
            delta.moved
                == .carsMoved(
                    at: Self.t0.addingTimeInterval(1),
                    moves: [
                        OperatorCarMove(driverID: "d1", location: moved.location, path: "_p~iF~ps|U", etaSeconds: 240)
                    ]))
    }

    @Test func anEndedTripIsSentOnceWithItsFinalStateAndAGoneCarIsNamed() {
        var state = OperatorFeedState()
        _ = state.advance(
            cars: [Self.car("d1", seq: 1, at: 0), Self.car("d2", seq: 1, at: 0)],
            trips: [Self.trip("t1", .searching, version: 1, driver: nil)], ended: [:], now: Self.t0, reconnects: 0,
            path: { _, _ in nil })
        let final = Self.trip("t1", .cancelled, version: 2, driver: nil)
        let delta = state.advance(
            cars: [Self.car("d1", seq: 1, at: 0)], trips: [], ended: ["t1": final], now: Self.t0.addingTimeInterval(1),
            reconnects: 0, path: { _, _ in nil })
        #expect(
            delta.changed
                == .fleetChanged(at: Self.t0.addingTimeInterval(1), cars: [], carsGone: ["d2"], trips: [final]))
        #expect(state.tripIDs == [])
    }

    @Test func positionAgesAreThoseOfCarsOnATripAtNearestRank() {
        var state = OperatorFeedState()
        // Ages 1, 2, ..., 10 s at t0 + 10 s; one idle car 60 s old does not count.
        var cars = (1...10).map { Self.car("d\($0)", seq: 1, at: Double(10 - $0), trip: ("t\($0)", .onTrip)) }
        cars.append(Self.car("idle", seq: 1, at: -50))
        _ = state.advance(
            cars: cars, trips: (1...10).map { Self.trip("t\($0)", .onTrip, version: 4, driver: "d\($0)") }, ended: [:],
            now: Self.t0, reconnects: 0, path: { _, _ in nil })
        let stats = state.stats(at: Self.t0.addingTimeInterval(10), reconnects: 3)
        #expect(
            stats
                == FleetStats(
                    driversOnline: 11, driversDegraded: 0, tripsByState: ["onTrip": 10], positionAgeP50: 5,
                    positionAgeP99: 10, budgetSeconds: 5, reconnects: 3))
    }
}
