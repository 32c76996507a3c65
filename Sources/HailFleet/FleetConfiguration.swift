import Foundation
import HailCore

/// What a fleet runs: how many apps of each kind, against which server, where, and where their logs go.
public struct FleetConfiguration: Sendable {
    /// The server or balancer, such as `http://127.0.0.1:8080`.
    public var server: URL
    /// How many rider apps ride ride after ride.
    public var riders: Int
    /// How many driver apps take trips.
    public var drivers: Int
    /// Draws the start points, the rides and their cancels: a seed repeats a fleet's choices (not its timing).
    public var seed: UInt64
    /// Where each app's `.jsonl` event log and its durable state (`.sqlite`) go.
    public var logDirectory: String
    /// How long to ride; nil until the process is stopped.
    public var duration: TimeInterval?
    /// Where the rides go and the drivers start.
    public var area: FleetArea
    /// The cars' speed in metres per second.
    public var speed: Double
    /// The roads the cars drive.
    public var routes: FleetRoutes
    /// The account ids are `PREFIX-r-N` and `PREFIX-d-N`.
    public var prefix: String
    /// One ride in this many is cancelled by its rider, at a drawn moment 1 to 25 s after the request (0: none).
    public var cancelOneIn: Int
    /// At most this many rides per rider (0: no limit).
    public var ridesPerRider: Int
    /// An access token for an account id: `rider` or `driver` is the role.
    public var token: @Sendable (_ role: String, _ subject: String) -> String

    /// A fleet with the fault suite's defaults: Monaco's centre, 150 km/h, straight lines, one ride in three
    /// cancelled.
    public init(
        server: URL, riders: Int, drivers: Int, seed: UInt64, logDirectory: String,
        token: @escaping @Sendable (_ role: String, _ subject: String) -> String
    ) {
        self.server = server
        self.riders = riders
        self.drivers = drivers
        self.seed = seed
        self.logDirectory = logDirectory
        self.token = token
        duration = nil
        area = .monaco
        speed = 150 / 3.6
        routes = .straight
        prefix = "fl"
        cancelOneIn = 3
        ridesPerRider = 0
    }
}
