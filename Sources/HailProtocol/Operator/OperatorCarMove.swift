import Foundation
import HailCore

/// A car's new position on the operator's stream, with the road it drove since the last one sent.
public struct OperatorCarMove: Codable, Sendable, Hashable {
    /// The driver's id.
    public var driverID: String
    /// The new position (seq, coordinate, heading, server receipt time).
    public var location: DriverLocation
    /// The road from the previous position sent to this one, both ends included, as a Google encoded
    /// polyline at precision 5 (as in `driverMoved`); absent when there is no road path (straight glide).
    public var path: String?
    /// The server's ETA in seconds for the trip the car serves (to the pickup, then to the dropoff).
    public var etaSeconds: Int?

    /// Creates a move.
    public init(driverID: String, location: DriverLocation, path: String?, etaSeconds: Int?) {
        self.driverID = driverID
        self.location = location
        self.path = path
        self.etaSeconds = etaSeconds
    }
}
