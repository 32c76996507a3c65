import Foundation
import HailCore

/// Trips and parties shared by the trip tests.
enum TripFixtures {
    static let riderID = "rider-1"
    static let asha = Driver(
        id: "driver-asha",
        name: "Asha",
        carModel: "Toyota Prius",
        plate: "MC 1850",
        rating: 4.9,
        photoURL: URL(string: "https://example.com/asha.jpg")!
    )
    static let request = TripRequest(
        pickup: Coordinate(lat: 43.7396, lng: 7.4276),
        dropoff: Coordinate(lat: 43.7314, lng: 7.4197),
        productID: .economy
    )
    static let fare = Money(amountMinor: 1850, currency: "EUR")

    /// A record in `state`, with Asha attached wherever the trip has reached a driver.
    static func record(in state: TripState, version: Int = 5) -> TripRecord {
        var trip = Trip(
            id: "trip-1",
            state: state,
            pickup: request.pickup,
            dropoff: request.dropoff,
            productID: .economy,
            version: version
        )
        if state.hasDriver || state == .cancelled { trip.driver = asha }
        if state == .completed { trip.fare = fare }
        return TripRecord(trip: trip, riderID: riderID)
    }
}
