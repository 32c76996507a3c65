/// One update from the phone's live location stream, as Apple's `CLLocationUpdate` reports it, without
/// CoreLocation: what `LiveUpdateMapping` turns into the fixes and the fix status a `LocationSource` gives.
public struct LiveLocationUpdate: Sendable, Hashable {
    /// The fix, when the update carries one.
    public var location: LocationPoint?
    /// The phone has stopped moving (`isStationary` from iOS 17, `stationary` from iOS 18).
    public var stationary: Bool
    /// No fix can be had (`locationUnavailable`, iOS 18; never set on iOS 17, where an update without a location
    /// says the same).
    public var locationUnavailable: Bool
    /// The driver (or a profile, or the system) does not allow location for this app (`authorizationDenied`,
    /// `authorizationDeniedGlobally`, `authorizationRestricted`, iOS 18; on iOS 17 the authorization status).
    public var authorizationDenied: Bool

    /// Creates an update.
    public init(
        location: LocationPoint?, stationary: Bool = false, locationUnavailable: Bool = false,
        authorizationDenied: Bool = false
    ) {
        self.location = location
        self.stationary = stationary
        self.locationUnavailable = locationUnavailable
        self.authorizationDenied = authorizationDenied
    }
}
