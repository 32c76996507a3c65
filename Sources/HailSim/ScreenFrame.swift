import Foundation
import HailCore

/// One frame of a rider's trip screen as the simulator samples it from the real `RiderModel`: what a
/// person looking at the phone would see at `time`.
struct ScreenFrame: Sendable, Hashable {
    /// When the frame is drawn, on the city's timeline.
    var time: Date
    /// The trip shown.
    var tripID: String
    /// The trip's state as the model holds it.
    var state: TripState
    /// The trip's version as the model holds it.
    var version: Int
    /// The driver of the trip, once assigned.
    var driverID: String?
    /// The newest driver position applied (the pin's position).
    var shown: DriverLocation?
    /// Where the car is drawn this frame (the glide's marker).
    var marker: Coordinate?
    /// The ETA in minutes on screen.
    var etaMinutes: Int?
    /// The fare on screen.
    var fare: Money?
    /// True when "Driver's location may be delayed" is on screen.
    var showsDelayedBanner: Bool
    /// What the pin says of itself (live, updating, locating), while a driver is on the way or driving.
    var pin: PinFreshness.Level?
    /// What the rider's app adds to its clock to read the server's (`RiderModel.serverClockOffset`); the simulated
    /// phone's clock is the server's, so anything but 0 is the estimate's error.
    var clockOffset: Double = 0

    init(
        time: Date, tripID: String, state: TripState, version: Int, driverID: String?, shown: DriverLocation? = nil,
        marker: Coordinate? = nil, etaMinutes: Int? = nil, fare: Money?, showsDelayedBanner: Bool,
        pin: PinFreshness.Level? = nil, clockOffset: Double = 0
    ) {
        self.time = time
        self.tripID = tripID
        self.state = state
        self.version = version
        self.driverID = driverID
        self.shown = shown
        self.marker = marker
        self.etaMinutes = etaMinutes
        self.fare = fare
        self.showsDelayedBanner = showsDelayedBanner
        self.pin = pin
        self.clockOffset = clockOffset
    }
}
