import Foundation
import HailCore

/// One car on the operator's stream (`/v1/fleet/live`): where it is, who drives it and what it is doing.
public struct OperatorCar: Codable, Sendable, Hashable {
    /// The driver's id (their token's subject).
    public var driverID: String
    /// The driver's card: name, car, plate.
    public var driver: Driver?
    /// The last published position.
    public var location: DriverLocation
    /// True while the driver takes trips.
    public var online: Bool
    /// True when the phone reported degraded location (thermal state, Low Power).
    public var degraded: Bool
    /// The active trip the driver serves, if any.
    public var tripID: String?
    /// That trip's state.
    public var tripState: TripState?

    /// Creates a car.
    public init(
        driverID: String, driver: Driver?, location: DriverLocation, online: Bool, degraded: Bool, tripID: String?,
        tripState: TripState?
    ) {
        self.driverID = driverID
        self.driver = driver
        self.location = location
        self.online = online
        self.degraded = degraded
        self.tripID = tripID
        self.tripState = tripState
    }

    /// True when the two differ in more than the position: the change goes out as essential.
    public func differsBeyondPosition(from other: OperatorCar) -> Bool {
        online != other.online || degraded != other.degraded || tripID != other.tripID
            || tripState != other.tripState || driver != other.driver
    }
}
