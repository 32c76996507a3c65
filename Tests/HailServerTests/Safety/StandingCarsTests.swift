import Foundation
import Testing

@testable import HailServer

/// The jams a long stop is judged against: cars on a trip standing on the same edge, fresh within 30 s.
@Suite("StandingCars: jams from the cars standing on one edge")
struct StandingCarsTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aCarIsInAJamWhenTwoOthersStandOnItsEdgeAndNotOnceTheyMoveOrGoQuiet() {
        let cars = StandingCars()
        #expect(!cars.note(driverID: "a", edge: 7, standing: true, now: Self.t0))
        #expect(!cars.note(driverID: "b", edge: 7, standing: true, now: Self.t0))
        // One on another edge, and one on the edge moving: no jam yet; a third standing there makes one.
        #expect(!cars.note(driverID: "c", edge: 8, standing: true, now: Self.t0))
        #expect(!cars.note(driverID: "d", edge: 7, standing: false, now: Self.t0))
        #expect(cars.note(driverID: "e", edge: 7, standing: true, now: Self.t0.addingTimeInterval(1)))
        #expect(cars.note(driverID: "a", edge: 7, standing: true, now: Self.t0.addingTimeInterval(5)))
        // b drives on: a has e alone beside it.
        #expect(!cars.note(driverID: "b", edge: 7, standing: false, now: Self.t0.addingTimeInterval(6)))
        #expect(!cars.note(driverID: "a", edge: 7, standing: true, now: Self.t0.addingTimeInterval(7)))
        #expect(cars.note(driverID: "b", edge: 7, standing: true, now: Self.t0.addingTimeInterval(8)))
        // e is not heard from for over 30 s: no longer a car standing there.
        #expect(!cars.note(driverID: "a", edge: 7, standing: true, now: Self.t0.addingTimeInterval(32)))
    }
}
