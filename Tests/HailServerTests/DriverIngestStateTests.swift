import Foundation
import HailCore
import Testing

@testable import HailServer

/// A driver's ingest state holds its trip out of line: small while the driver is idle, the same to every caller.
@Suite struct DriverIngestStateTests {
    static func record(driver: String) -> TripRecord {
        var trip = Trip(
            id: "t-1", state: .driverAssigned, pickup: Coordinate(lat: 43.7396, lng: 7.4276),
            dropoff: Coordinate(lat: 43.7314, lng: 7.4197), productID: .economy, version: 3)
        trip.driver = Driver(
            id: driver, name: "Ana", carModel: "Zoe", plate: "MC-1", rating: 4.9,
            photoURL: URL(string: "https://example.invalid/ana.jpg")!)
        return TripRecord(trip: trip, riderID: "r-1")
    }

    @Test func anIdleDriversStateCarriesOnePointerForTheTrip() {
        // The record itself is what the state used to carry inline.
        #expect(MemoryLayout<TripRecord?>.size > 250)
        #expect(MemoryLayout<TripRecordBox?>.size == 8)
        #expect(MemoryLayout<DriverIngestState>.size < MemoryLayout<TripRecord?>.size)
    }

    @Test func aTripSetReadsBackAndAChangeIsNotSharedWithACopy() {
        var state = DriverIngestState()
        state.trip = Self.record(driver: "d-1")
        let copy = state
        state.trip?.trip.version = 4
        #expect(state.trip?.trip.version == 4)
        #expect(copy.trip?.trip.version == 3)
        #expect(copy.trip == Self.record(driver: "d-1"))
        state.trip = nil
        #expect(state.trip == nil)
        #expect(copy != state)
    }

    @Test func theStoredFormNamesTheTripAsBefore() throws {
        var state = DriverIngestState()
        state.lastSeq = 7
        state.tripKnown = true
        state.trip = Self.record(driver: "d-1")
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(state)) as? [String: Any]
        let trip = try #require(json?["trip"] as? [String: Any])
        #expect(trip["riderID"] as? String == "r-1")
        #expect(try JSONDecoder().decode(DriverIngestState.self, from: JSONEncoder().encode(state)) == state)
    }
}
