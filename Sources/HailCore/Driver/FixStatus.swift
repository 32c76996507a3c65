/// What the phone's location hardware says beyond the fixes it delivers: whether its last fix is where
/// the car is.
///
/// A driver who gets no fix for a while is either standing still (the distance filter holds every fix
/// back, and the last one is where the car stands) or has no fix at all (a tunnel, a garage). Only in the
/// first case may the last fix be sent again stamped now: in the second it would show a rider a position
/// of unknown age as fresh. On Apple platforms `CLLocationUpdate`'s stationary and location-unavailable
/// signals tell the two apart; the simulated phone has no fix in tunnels.
public enum FixStatus: String, Codable, Sendable, Hashable, CaseIterable {
    /// Fixes are coming: the last one is where the car is, or was a moment ago.
    case current
    /// The phone stands still with a fix: the last one is where it stands.
    case standing
    /// No fix can be had: the last one says where the car was, not where it is.
    case unavailable
}
