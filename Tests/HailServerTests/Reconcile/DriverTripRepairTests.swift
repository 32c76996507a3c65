import Foundation
import HailCore
import HailServer
import Testing

/// The driver-record repair's decisions, with no store: what the trip store says against what the driver's shared
/// state says, and the exact write that settles it.
@Suite("Driver trip record repair")
struct DriverTripRepairTests {
    static func record(_ id: String, _ state: TripState, version: Int, driver: String? = "d-1") -> TripRecord {
        let card = driver.map {
            Driver(
                id: $0, name: "Ines", carModel: "Renault Zoe", plate: "MC 0412", rating: 4.7,
                photoURL: URL(string: "https://hail.invalid/\($0).jpg")!)
        }
        return TripRecord(
            trip: Trip(
                id: id, state: state, pickup: Coordinate(lat: 43.7396, lng: 7.4276),
                dropoff: Coordinate(lat: 43.7314, lng: 7.4197), productID: .economy, version: version, driver: card),
            riderID: "r-1")
    }

    static func mark(_ id: String, _ version: Int, active: Bool) -> DriverTripMark {
        DriverTripMark(tripID: id, version: version, active: active)
    }

    @Test func aTripThatEndedWhileRedisRefusedIsClearedAtTheVersionItEndedAt() {
        // Redis still says onTrip at version 4; the trip completed at version 5 and the store has no active trip.
        let stored = Self.mark("t-1", 4, active: true)
        #expect(DriverTripRepair.lookUp(stored: stored, active: nil) == "t-1")
        let decision = DriverTripRepair.decide(
            driverID: "d-1", stored: stored, active: nil, current: Self.record("t-1", .completed, version: 5))
        #expect(
            decision
                == .write(
                    .init(
                        driverID: "d-1", expected: stored, mark: Self.mark("t-1", 5, active: false), record: nil)))
    }

    @Test func aTripStartedWhileRedisRefusedIsRecordedOnTrip() {
        let stored = Self.mark("t-1", 3, active: true)
        let onTrip = Self.record("t-1", .onTrip, version: 4)
        #expect(DriverTripRepair.lookUp(stored: stored, active: onTrip) == nil)
        #expect(
            DriverTripRepair.decide(driverID: "d-1", stored: stored, active: onTrip, current: nil)
                == .write(
                    .init(driverID: "d-1", expected: stored, mark: Self.mark("t-1", 4, active: true), record: onTrip)))
    }

    @Test func aRecordAtTheStoredVersionOrNewerAgrees() {
        let active = Self.record("t-1", .onTrip, version: 4)
        #expect(
            DriverTripRepair.decide(
                driverID: "d-1", stored: Self.mark("t-1", 4, active: true), active: active, current: nil)
                == .agrees)
        // The mark is newer than the read (a change recorded after it): never written back.
        #expect(
            DriverTripRepair.decide(
                driverID: "d-1", stored: Self.mark("t-1", 5, active: false), active: active, current: nil)
                == .agrees)
    }

    @Test func anAcceptWhoseRecordWasLostIsWrittenOverNone() {
        let assigned = Self.record("t-2", .driverAssigned, version: 2)
        #expect(
            DriverTripRepair.decide(driverID: "d-1", stored: .none, active: assigned, current: nil)
                == .write(
                    .init(driverID: "d-1", expected: .none, mark: Self.mark("t-2", 2, active: true), record: assigned)))
        // An ended trip marked inactive and a new one the store knows: the new one is written.
        let ended = Self.mark("t-1", 5, active: false)
        #expect(
            DriverTripRepair.decide(driverID: "d-1", stored: ended, active: assigned, current: nil)
                == .write(
                    .init(driverID: "d-1", expected: ended, mark: Self.mark("t-2", 2, active: true), record: assigned)))
    }

    @Test func aMarkedTripStillTheDriversByAFresherReadIsKept() {
        // The active read lagged an accept the mark already has: the fresh read of the marked trip settles it.
        let stored = Self.mark("t-2", 2, active: true)
        #expect(DriverTripRepair.lookUp(stored: stored, active: nil) == "t-2")
        #expect(
            DriverTripRepair.decide(
                driverID: "d-1", stored: stored, active: nil, current: Self.record("t-2", .driverAssigned, version: 2))
                == .agrees)
        // A fresher read newer than the mark is written.
        let arrived = Self.record("t-2", .driverArrived, version: 3)
        #expect(
            DriverTripRepair.decide(driverID: "d-1", stored: stored, active: nil, current: arrived)
                == .write(
                    .init(driverID: "d-1", expected: stored, mark: Self.mark("t-2", 3, active: true), record: arrived)))
    }

    @Test func aTripTheDriverGaveUpIsClearedThoughItIsStillActive() {
        // The driver cancelled: the trip searches again with no driver; the mark still says this driver serves it.
        let stored = Self.mark("t-1", 2, active: true)
        #expect(
            DriverTripRepair.decide(
                driverID: "d-1", stored: stored, active: nil,
                current: Self.record("t-1", .searching, version: 3, driver: nil))
                == .write(
                    .init(driverID: "d-1", expected: stored, mark: Self.mark("t-1", 3, active: false), record: nil)))
    }

    @Test func aTripGoneFromTheStoreIsClearedAtTheMarkedVersion() {
        let stored = Self.mark("t-9", 3, active: true)
        #expect(
            DriverTripRepair.decide(driverID: "d-1", stored: stored, active: nil, current: nil)
                == .write(
                    .init(driverID: "d-1", expected: stored, mark: Self.mark("t-9", 3, active: false), record: nil)))
    }

    @Test func aDriverWithNoTripOnEitherSideAgrees() {
        #expect(DriverTripRepair.lookUp(stored: .none, active: nil) == nil)
        #expect(DriverTripRepair.decide(driverID: "d-1", stored: .none, active: nil, current: nil) == .agrees)
        #expect(
            DriverTripRepair.decide(
                driverID: "d-1", stored: Self.mark("t-1", 5, active: false), active: nil, current: nil)
                == .agrees)
    }
}
