import Foundation
import HailCore

/// One trip on the operator's stream: its state and version, its ends, its driver and the server's ETA.
public struct OperatorTrip: Codable, Sendable, Hashable {
    /// The trip's id.
    public var id: String
    /// Its state; a final state (completed, cancelled, noDriversFound) is sent once, then the trip is gone.
    public var state: TripState
    /// Its version: a newer one replaces an older one, never the reverse.
    public var version: Int
    /// Where the rider is picked up.
    public var pickup: Coordinate
    /// Where the rider is going.
    public var dropoff: Coordinate
    /// The rider's id.
    public var riderID: String
    /// The assigned driver's id, once there is one.
    public var driverID: String?
    /// The server's ETA in seconds (to the pickup, then to the dropoff), when it has one.
    public var etaSeconds: Int?

    /// Creates a trip.
    public init(
        id: String, state: TripState, version: Int, pickup: Coordinate, dropoff: Coordinate, riderID: String,
        driverID: String?, etaSeconds: Int?
    ) {
        self.id = id
        self.state = state
        self.version = version
        self.pickup = pickup
        self.dropoff = dropoff
        self.riderID = riderID
        self.driverID = driverID
        self.etaSeconds = etaSeconds
    }

    /// The operator's view of `record`, with `etaSeconds` as the server has it now.
    public init(_ record: TripRecord, etaSeconds: Int?) {
        self.init(
            id: record.trip.id, state: record.trip.state, version: record.trip.version, pickup: record.trip.pickup,
            dropoff: record.trip.dropoff, riderID: record.riderID, driverID: record.driverID, etaSeconds: etaSeconds)
    }
}
