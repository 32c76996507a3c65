/// What the driver is doing, as far as the location pipeline cares.
public enum DriverActivity: String, Codable, Sendable, Hashable, CaseIterable {
    /// Not working: no location at all.
    case offline
    /// Online and waiting for an offer: slow, cheap updates keep them in the geo index.
    case waitingForTrip
    /// Driving to the pickup: the rider is watching the car.
    case toPickup
    /// Driving the rider: the rider is watching and the path is the fare.
    case onTrip
}
