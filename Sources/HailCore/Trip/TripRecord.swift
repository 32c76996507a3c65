/// A trip as the server's authority holds it: the trip every party sees, and who it belongs to.
public struct TripRecord: Codable, Sendable, Hashable {
    /// The trip as it is sent to riders and drivers.
    public var trip: Trip
    /// The rider who requested it, the subject of their token.
    public var riderID: String

    /// Creates a record.
    public init(trip: Trip, riderID: String) {
        self.trip = trip
        self.riderID = riderID
    }

    /// The id of the assigned driver, if any.
    public var driverID: String? { trip.driver?.id }
}

/// Who is asking for a trip change. The server derives it from the request's token, never from its body.
public enum TripActor: Sendable, Hashable, CustomStringConvertible {
    /// A rider, by account id.
    case rider(String)
    /// A driver, by account id.
    case driver(String)
    /// The server itself: dispatch timeouts and ETA refreshes.
    case system

    /// `rider:r-1`, `driver:d-7` or `system`, for logs and the audit trail.
    public var description: String {
        switch self {
        case .rider(let id): return "rider:\(id)"
        case .driver(let id): return "driver:\(id)"
        case .system: return "system"
        }
    }
}
