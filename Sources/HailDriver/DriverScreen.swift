import Foundation
import HailCore

/// What the driver's screen shows, as one value: the terminal app prints it, a SwiftUI view binds to it.
public struct DriverScreen: Codable, Sendable, Hashable {
    /// The headline: "Offline", "Waiting for trips", "New trip offer", "Ending trip…", "Trip completed".
    public var title: String
    /// True while the driver is online.
    public var online: Bool
    /// Which link carries positions: "stream", "http" or "down".
    public var link: String
    /// The offered trip's id, while an offer is open.
    public var offerTripID: String?
    /// When the open offer lapses.
    public var offerExpiresAt: Date?
    /// The trip on screen.
    public var tripID: String?
    /// Its state as the server last confirmed it.
    public var tripState: TripState?
    /// The action tapped and not yet confirmed, if any.
    public var pending: DriverIntent.Kind?
    /// The fare, once the server has set it.
    public var fare: Money?
    /// The server's reason for refusing the last action, until dismissed.
    public var rejection: String?
    /// True when heat or Low Power has coarsened the location policy.
    public var degraded: Bool
}
