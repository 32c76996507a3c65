/// A trip as the server's authority holds it: the trip every party sees, and who it belongs to.
public struct TripRecord: Codable, Sendable, Hashable {
    /// The trip as it is sent to riders and drivers.
    public var trip: Trip
    /// The rider who requested it, the subject of their token.
    public var riderID: String
    /// The 4-digit code the driver must enter to start the trip, when the rider (or their cohort) asked for one.
    /// Kept here rather than in `trip`, so that only the rider's answers add it (`tripForRider`).
    public var pickupPIN: String?
    /// The wrong PINs entered so far and the lock they caused, if any.
    public var pinAttempts: PickupPINAttempts?
    /// The trip's latest safety alert and the rider's answer; only the rider's answers add it (`tripForRider`).
    public var alert: TripAlert?
    /// The route the driver's navigation reported last on the trip under way, if any: the plan the trip watch judges
    /// the car against. Kept here rather than in `trip`: no party's answer carries it.
    public var route: ReportedRoute?

    /// Creates a record.
    public init(
        trip: Trip, riderID: String, pickupPIN: String? = nil, pinAttempts: PickupPINAttempts? = nil,
        alert: TripAlert? = nil, route: ReportedRoute? = nil
    ) {
        self.trip = trip
        self.riderID = riderID
        self.pickupPIN = pickupPIN
        self.pinAttempts = pinAttempts
        self.alert = alert
        self.route = route
    }

    /// The id of the assigned driver, if any.
    public var driverID: String? { trip.driver?.id }

    /// The trip as its rider reads it: with the pickup PIN while the driver still has to enter it, and the trip's
    /// safety alert with the rider's own answer.
    public var tripForRider: Trip {
        var trip = self.trip
        if let pickupPIN, [.searching, .driverAssigned, .driverArrived].contains(trip.state) {
            trip.pickupPIN = pickupPIN
        }
        trip.alert = alert
        return trip
    }
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
