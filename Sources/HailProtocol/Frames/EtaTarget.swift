import HailCore

/// Where a `driverMoved` frame's ETA runs to: the pickup until the trip starts, the dropoff during it.
///
/// A position frame can reach the rider after the trip moved on (the server computed it just before the
/// start was committed, or the network delivered it late): its ETA is then to the old target, and an app
/// that checks the target does not show the minutes to the pickup as the minutes to the dropoff.
public enum EtaTarget: String, Codable, Sendable, Hashable, CaseIterable {
    /// The ETA is to the pickup (driver assigned, or arrived).
    case pickup
    /// The ETA is to the dropoff (on trip).
    case dropoff

    /// The target of a trip in `state`'s ETA, nil for states without one.
    public init?(for state: TripState) {
        switch state {
        case .driverAssigned, .driverArrived: self = .pickup
        case .onTrip: self = .dropoff
        case .searching, .completed, .cancelled, .noDriversFound: return nil
        }
    }
}
