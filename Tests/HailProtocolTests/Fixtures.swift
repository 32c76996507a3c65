import Foundation
import HailCore
import HailProtocol

/// Values shared by the tests, written once so every expected byte string refers to the same trip.
enum Fixtures {
    static let receivedAt = Date(timeIntervalSince1970: 1_796_219_663.123)
    static let casino = Coordinate(lat: 43.7396, lng: 7.4276)
    static let palace = Coordinate(lat: 43.7314, lng: 7.4197)

    static let driver = Driver(
        id: "drv_7", name: "Asha", carModel: "Toyota Prius", plate: "MC-123", rating: 4.9,
        photoURL: URL(string: "https://cdn.example.com/d/7.jpg")!)

    static let trip = Trip(
        id: "trip_1", state: .driverAssigned, pickup: casino, dropoff: palace, productID: .economy, version: 3,
        driver: driver, etaSeconds: 240,
        driverLocation: DriverLocation(
            coordinate: Coordinate(lat: 43.738, lng: 7.426), heading: 90, seq: 42, receivedAt: receivedAt))

    static let tripJSON =
        #"{"driver":{"carModel":"Toyota Prius","id":"drv_7","name":"Asha","photoURL":"https://cdn.example.com/d/7.jpg","#
        + #""plate":"MC-123","rating":4.9},"driverLocation":{"coordinate":{"lat":43.738,"lng":7.426},"heading":90,"#
        + #""receivedAt":"2026-12-02T13:54:23.123Z","seq":42},"dropoff":{"lat":43.7314,"lng":7.4197},"etaSeconds":240,"#
        + #""id":"trip_1","pickup":{"lat":43.7396,"lng":7.4276},"productID":"economy","state":"driverAssigned","#
        + #""version":3}"#

    static let searchingTrip = Trip(
        id: "trip_2", state: .searching, pickup: casino, dropoff: palace, productID: .xl, version: 1)

    static let searchingTripJSON =
        #"{"dropoff":{"lat":43.7314,"lng":7.4197},"id":"trip_2","pickup":{"lat":43.7396,"lng":7.4276},"#
        + #""productID":"xl","state":"searching","version":1}"#

    /// Ten fixes one second apart along a street in Monaco, as a phone would report them.
    static let tenPointBatch = LocationBatch(
        seq: 42,
        points: (0..<10).map { index in
            let step = Double(index)
            let lat = 43.7396 - step * 0.00008
            let lng = 7.4276 - step * 0.00007
            let accuracy = 4.5 + Double(index % 3)
            let t = Date(timeIntervalSince1970: 1_796_219_663.123 + step)
            return LocationPoint(
                lat: lat, lng: lng, accuracy: accuracy, heading: 212.5 + step, speed: 8.3 + step * 0.1, t: t)
        })

    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try HailJSON.encode(value), as: UTF8.self)
    }
}
