import HailCore
import HailProtocol

/// Everything the trip screen shows, derived from the model at one instant; a view renders it as is.
public struct RiderScreen: Sendable, Hashable {
    /// Which screen the rider is on.
    public enum Phase: String, Sendable, Hashable, CaseIterable {
        /// No trip: pick a product and request.
        case idle
        /// Finding a driver.
        case searching
        /// A driver is on the way: driver card with car and plate, ETA to the pickup.
        case driverAssigned
        /// The driver is at the pickup.
        case driverArrived
        /// In the car, ETA to the dropoff.
        case onTrip
        /// The trip ended; the fare is shown.
        case completed
        /// The rider or the driver cancelled.
        case cancelled
        /// Nobody accepted in time.
        case noDriversFound
        /// The server cannot be reached; what is shown may be out of date.
        case offline
    }

    /// What went wrong with something the rider asked for. The core says what happened; the app says it in words.
    public enum Problem: Sendable, Hashable {
        /// The prices could not be loaded: the server did not answer, or failed. Asking again may work.
        case pricesUnavailable
        /// A "Request" tap got no answer through its three attempts and the server shows no trip made by it; the
        /// next tap is a new request.
        case requestFailed
        /// A "Cancel" tap got no answer through its three attempts; the trip is as the screen shows it.
        case cancelFailed
        /// A check-in answer ("I'm OK", "get help") got no answer through its three attempts; the alert still waits.
        case checkInFailed
        /// The server refused because the trip had moved on (`invalid_state`): it started, ended or was cancelled
        /// before the tap reached it.
        case tripMovedOn
        /// The server refused for a reason of its own: its error code (nil when the seam cannot make the call at
        /// all) and its explanation, written for a developer rather than the rider.
        case refused(code: APIError.Code?, reason: String)
    }

    /// Which screen the rider is on.
    public var phase: Phase
    /// The trip shown, when there is one.
    public var tripID: String?
    /// The driver card: name, car and plate.
    public var driver: Driver?
    /// The smoothed ETA in minutes (to the pickup, or to the dropoff on trip); nil when none may be shown.
    public var etaMinutes: Int?
    /// The fare, once completed.
    public var fare: Money?
    /// How much the map may claim about the car, while a driver is on the way or driving; else nil.
    public var pin: PinFreshness.Level?
    /// True when "Driver's location may be delayed" is shown.
    public var showsDelayedBanner: Bool
    /// True when the rider may cancel: before the trip starts and while no cancel is in flight.
    public var canCancel: Bool
    /// Metres from the pickup to the car, while the driver is on the way or waiting.
    public var distanceToCarMeters: Int?
    /// True while a "Request" tap is being sent (and retried).
    public var isRequesting: Bool
    /// What went wrong with the last thing the rider asked for, for the app to say in the rider's language; nil
    /// when nothing did.
    public var problem: Problem?

    /// Creates a screen value.
    public init(
        phase: Phase, tripID: String? = nil, driver: Driver? = nil, etaMinutes: Int? = nil, fare: Money? = nil,
        pin: PinFreshness.Level? = nil, showsDelayedBanner: Bool = false, canCancel: Bool = false,
        distanceToCarMeters: Int? = nil, isRequesting: Bool = false, problem: Problem? = nil
    ) {
        self.phase = phase
        self.tripID = tripID
        self.driver = driver
        self.etaMinutes = etaMinutes
        self.fare = fare
        self.pin = pin
        self.showsDelayedBanner = showsDelayedBanner
        self.canCancel = canCancel
        self.distanceToCarMeters = distanceToCarMeters
        self.isRequesting = isRequesting
        self.problem = problem
    }
}
