import HailCore

/// A trip change the rider hears about by push while the app is in the background.
public enum PushEvent: String, Codable, Sendable, Hashable, CaseIterable {
    /// A driver accepted.
    case driverAssigned
    /// The driver is at the pickup.
    case driverArrived
    /// The rider is in the car.
    case tripStarted
    /// The trip ended; the fare is final.
    case tripCompleted
    /// The rider or the driver cancelled.
    case tripCancelled
    /// The search gave up: nobody took the trip.
    case noDriverFound
    /// Nothing changed state, but the driver moved: a fresh ETA for the Live Activity only, no alert.
    case etaRefreshed

    /// The event a committed change from `previous` to `next` is worth, or nil (an ETA refresh, a
    /// driver who dropped the trip and the search going on, a replayed answer). Every end of a trip is one,
    /// so its Live Activity always gets its `end`.
    public static func event(from previous: TripState?, to next: TripState) -> PushEvent? {
        guard previous != next else { return nil }
        switch next {
        case .driverAssigned: return .driverAssigned
        case .driverArrived: return .driverArrived
        case .onTrip: return .tripStarted
        case .completed: return .tripCompleted
        case .cancelled: return .tripCancelled
        case .noDriversFound: return .noDriverFound
        case .searching: return nil
        }
    }

    /// True when the rider's device gets an alert for this event (every event but an ETA refresh).
    public var alerts: Bool { self != .etaRefreshed }

    /// True when the Live Activity ends with this event.
    public var endsActivity: Bool { self == .tripCompleted || self == .tripCancelled || self == .noDriverFound }
}
