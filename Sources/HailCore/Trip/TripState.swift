/// Where a trip is in its life. The server owns it; the apps render it.
public enum TripState: String, Codable, Sendable, Hashable, CaseIterable {
    /// The rider asked; dispatch is looking for a driver.
    case searching
    /// A driver accepted and is on the way to the pickup.
    case driverAssigned
    /// The driver is at the pickup.
    case driverArrived
    /// The rider is in the car.
    case onTrip
    /// The trip ended; the fare is final.
    case completed
    /// The rider or the driver cancelled before the trip started.
    case cancelled
    /// Nobody accepted in time.
    case noDriversFound

    /// True while the trip still needs a live screen: searching, assigned, arrived or on trip.
    public var isActive: Bool {
        switch self {
        case .searching, .driverAssigned, .driverArrived, .onTrip: return true
        case .completed, .cancelled, .noDriversFound: return false
        }
    }

    /// True for states no transition leaves.
    public var isFinal: Bool { !isActive }

    /// True once a driver is attached to the trip (assigned, arrived, on trip, or completed with one).
    public var hasDriver: Bool {
        switch self {
        case .driverAssigned, .driverArrived, .onTrip, .completed: return true
        case .searching, .cancelled, .noDriversFound: return false
        }
    }
}
