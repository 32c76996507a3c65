import Foundation
import HailCore

/// What a simulated rider's screen shows right now (`GET /v1/demo/trips/{id}/rider`, `hail demo` only),
/// beside where the car truly is: the console's rider's-eye view of a trip.
public struct DemoRiderView: Codable, Sendable, Hashable {
    /// The trip on the rider's screen.
    public var tripID: String
    /// Its state as the screen has it.
    public var state: TripState
    /// Its version as the screen has it.
    public var version: Int
    /// The pin's freshness: `live`, `updating` or `locating`; nil before any position.
    public var pin: String?
    /// True while the screen says "Driver's location may be delayed".
    public var showsDelayedBanner: Bool
    /// The ETA in minutes as the screen shows it (smoothed); nil when it shows none.
    public var etaMinutes: Int?
    /// Where the glide draws the car now.
    public var glide: Coordinate?
    /// The newest position the screen applied.
    public var shown: DriverLocation?
    /// Where the car truly is now.
    public var truth: Coordinate?

    /// Creates a view.
    public init(
        tripID: String, state: TripState, version: Int, pin: String?, showsDelayedBanner: Bool, etaMinutes: Int?,
        glide: Coordinate?, shown: DriverLocation?, truth: Coordinate?
    ) {
        self.tripID = tripID
        self.state = state
        self.version = version
        self.pin = pin
        self.showsDelayedBanner = showsDelayedBanner
        self.etaMinutes = etaMinutes
        self.glide = glide
        self.shown = shown
        self.truth = truth
    }
}
