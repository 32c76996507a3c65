import Foundation
import HailCore

/// The body of `GET /v1/fleet`: what the operator's live map draws, at one server instant.
public struct FleetSnapshot: Codable, Sendable, Hashable {
    /// One driver the map shows.
    public struct Car: Codable, Sendable, Hashable {
        /// The driver's id (their token's subject).
        public var driverID: String
        /// The last published position.
        public var location: DriverLocation
        /// True while the driver takes trips.
        public var online: Bool
        /// True when the phone reported degraded location.
        public var degraded: Bool
        /// The active trip the driver serves, if any.
        public var tripID: String?
        /// That trip's state.
        public var tripState: TripState?

        /// Creates a car.
        public init(
            driverID: String, location: DriverLocation, online: Bool, degraded: Bool, tripID: String?,
            tripState: TripState?
        ) {
            self.driverID = driverID
            self.location = location
            self.online = online
            self.degraded = degraded
            self.tripID = tripID
            self.tripState = tripState
        }
    }

    /// One active trip.
    public struct ActiveTrip: Codable, Sendable, Hashable {
        /// The trip's id.
        public var id: String
        /// Its state.
        public var state: TripState
        /// Its version.
        public var version: Int
        /// Where the rider is picked up.
        public var pickup: Coordinate
        /// Where the rider is going.
        public var dropoff: Coordinate
        /// The assigned driver, once there is one.
        public var driverID: String?

        /// The map's view of `record`.
        public init(_ record: TripRecord) {
            id = record.trip.id
            state = record.trip.state
            version = record.trip.version
            pickup = record.trip.pickup
            dropoff = record.trip.dropoff
            driverID = record.driverID
        }
    }

    /// The server's clock when the snapshot was taken.
    public var at: Date
    /// Every driver with a known position who is online or serving a trip.
    public var cars: [Car]
    /// Every active trip.
    public var trips: [ActiveTrip]

    /// Creates a snapshot.
    public init(at: Date, cars: [Car], trips: [ActiveTrip]) {
        self.at = at
        self.cars = cars
        self.trips = trips
    }
}
