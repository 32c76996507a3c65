import Foundation
import HailCore

/// The ride every preview double tells the same story of: a car in Monaco driving to a pickup on the port and
/// on to the casino, so a SwiftUI preview of the rider's or the driver's screen shows real states and a moving car.
public enum PreviewRide {
    /// Where the rider waits.
    public static let pickup = Coordinate(lat: 43.7350, lng: 7.4213)
    /// Where the rider goes.
    public static let dropoff = Coordinate(lat: 43.7396, lng: 7.4276)
    /// The car's way to the pickup, one fix a second's worth apart.
    public static let approach: [Coordinate] = (0...8).map { step in
        Coordinate(lat: 43.7310 + Double(step) * 0.0005, lng: 7.4180 + Double(step) * 0.0004)
    }
    /// The driver.
    public static let driver = Driver(
        id: "preview-driver", name: "Camille", carModel: "Renault Zoe", plate: "MC-1234", rating: 4.9,
        photoURL: URL(string: "https://example.com/camille.jpg")!)
    /// The fare when the ride ends.
    public static let fare = Money(amountMinor: 1850, currency: "EUR")

    /// The trip in `state`, at `version`.
    public static func trip(_ state: TripState, version: Int) -> Trip {
        Trip(
            id: "preview-trip", state: state, pickup: pickup, dropoff: dropoff, productID: .economy, version: version,
            driver: state == .searching ? nil : driver, etaSeconds: state.isActive ? 240 : nil,
            fare: state == .completed ? fare : nil)
    }
}
