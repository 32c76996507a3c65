import Foundation
import HailCore

/// The operator's live numbers: drivers, trips by state, how old the positions riders are shown are.
public struct FleetStats: Codable, Sendable, Hashable {
    /// Drivers online.
    public var driversOnline: Int
    /// Drivers online whose phones report degraded location.
    public var driversDegraded: Int
    /// Active trips by state (`searching`, `driverAssigned`, `driverArrived`, `onTrip`).
    public var tripsByState: [String: Int]
    /// Median age in seconds of the last position of the cars whose riders watch them (assigned, arrived,
    /// on trip), against the server's clock; nil when no car is on a trip.
    public var positionAgeP50: Double?
    /// The 99th percentile of the same ages.
    public var positionAgeP99: Double?
    /// The freshness budget those ages are held to (5 s: the car on the rider's map is at most 5 s behind).
    public var budgetSeconds: Double
    /// Stream reconnects (riders and drivers resuming) since the server started.
    public var reconnects: Int
    /// The design's operability numbers on this node (nil from a server before them).
    public var operability: OperabilityStats?

    /// Creates the numbers.
    public init(
        driversOnline: Int, driversDegraded: Int, tripsByState: [String: Int], positionAgeP50: Double?,
        positionAgeP99: Double?, budgetSeconds: Double, reconnects: Int, operability: OperabilityStats? = nil
    ) {
        self.operability = operability
        self.driversOnline = driversOnline
        self.driversDegraded = driversDegraded
        self.tripsByState = tripsByState
        self.positionAgeP50 = positionAgeP50
        self.positionAgeP99 = positionAgeP99
        self.budgetSeconds = budgetSeconds
        self.reconnects = reconnects
    }
}
