import Foundation
import HailCore

/// Trips, drivers and positions with round numbers, so assertions read as the rider would see them.
enum Fixtures {
    static let pickup = Coordinate(lat: 43.7396, lng: 7.4276)
    static let dropoff = Coordinate(lat: 43.7314, lng: 7.4197)
    /// Server time zero of the tests: 2026-12-02T13:00:00Z.
    static let serverEpoch = Date(timeIntervalSince1970: 1_796_130_000)
    static let driver = Driver(
        id: "driver-1", name: "Asha", carModel: "Toyota Prius", plate: "HL-204-AB", rating: 4.9,
        photoURL: URL(string: "https://example.com/asha.jpg")!)

    static func trip(
        _ state: TripState, version: Int, id: String = "trip-1", eta: Int? = nil, fare: Money? = nil,
        location: DriverLocation? = nil
    ) -> Trip {
        Trip(
            id: id, state: state, pickup: pickup, dropoff: dropoff, productID: .economy, version: version,
            driver: state.hasDriver ? driver : nil, etaSeconds: eta, fare: fare,
            driverLocation: location)
    }

    /// A position `seconds` after the server epoch, `metres` north of the pickup.
    static func position(seq: Int64, at seconds: Double, north metres: Double = 0, heading: Double = 0)
        -> DriverLocation
    {
        DriverLocation(
            coordinate: Coordinate(lat: pickup.lat + metres / 111_195, lng: pickup.lng), heading: heading, seq: seq,
            receivedAt: serverEpoch.addingTimeInterval(seconds))
    }
}
