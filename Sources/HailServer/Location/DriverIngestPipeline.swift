import Foundation
import HailCore

/// A driver's shared ingest state as one read saw it, with the version that read found.
public struct VersionedIngestState: Sendable, Hashable {
    /// The state.
    public var state: DriverIngestState
    /// The version stored beside it; every write leaves a new one, and "" means none was stored.
    public var version: String

    /// A state read at `version`.
    public init(state: DriverIngestState, version: String) {
        self.state = state
        self.version = version
    }
}

/// One batch as a node planned it on its cached copy of the driver's shared state, ready to be written in
/// one round trip: it applies only if the store still holds the version the copy was read at.
public struct PlannedIngestWrite: Sendable {
    /// The driver.
    public var driverID: String
    /// The batch's seq, stored as the newest applied.
    public var seq: Int64
    /// The version the node's copy was read at (or left by the node's last write).
    public var expectedVersion: String
    /// The version this write leaves, unique to it, so the next batch can be planned on its result.
    public var newVersion: String
    /// The filter after the batch.
    public var filter: LocationFilter
    /// The published position, if the batch moved the car.
    public var position: DriverLocation?
    /// The rider frame and the trip it goes to, if the car moved on a watched trip.
    public var publish: (message: BusMessage, topic: BusTopic)?
    /// Where the geo index puts an online driver, and when they were seen.
    public var geo: (coordinate: Coordinate, seenAt: Date)?
    /// Whether the write renews the state's lifetime in the store (the node does it once in a while, not on
    /// every batch).
    public var renewsLifetime: Bool

    /// A planned write.
    public init(
        driverID: String, seq: Int64, expectedVersion: String, newVersion: String, filter: LocationFilter,
        position: DriverLocation?, publish: (message: BusMessage, topic: BusTopic)?,
        geo: (coordinate: Coordinate, seenAt: Date)?, renewsLifetime: Bool = true
    ) {
        self.renewsLifetime = renewsLifetime
        self.driverID = driverID
        self.seq = seq
        self.expectedVersion = expectedVersion
        self.newVersion = newVersion
        self.filter = filter
        self.position = position
        self.publish = publish
        self.geo = geo
    }
}

/// What became of a planned write.
public enum PlannedIngestOutcome: Sendable, Hashable {
    /// Written: the seq, filter, position and publish in one step, the geo index right after.
    case applied
    /// Nothing was written: another node or a trip or status change wrote the driver's state since the copy
    /// was read, so the batch must be planned again on the stored state.
    case stale
}

/// The scaled mode's per-batch write: the whole effect of a batch on the shared stores in one round trip,
/// many drivers' batches pipelined on one connection, so a node ingests at the pace of its own CPU rather
/// than of round trips in series.
///
/// The node keeps each driver's shared state as its last read or write left it, plans the next batch on it
/// without waiting for anything (`Fleet.ingestNow`), and hands the result here. A version check makes the
/// copy safe to trust: when anyone else wrote the driver meanwhile the write is refused as `stale`, and the
/// node falls back to the step-by-step `DriverIngestStore` path, which reads the truth.
public protocol DriverIngestPipeline: Sendable {
    /// Whether every node sees this state or only this process (`ServerServices.make` refuses a mix).
    var scope: StateScope { get }

    /// Reads the driver's state and its version; nil when nothing is stored.
    func load(driverID: String) async throws -> VersionedIngestState?
    /// Reads several drivers' states in one round trip; those with nothing stored are absent.
    func load(driverIDs: [String]) async throws -> [String: VersionedIngestState]
    /// Starts the write and returns at once (callable from a network loop); `whenDone` runs exactly once,
    /// on the pipeline's thread. After a failure the write may or may not have been applied.
    func write(
        _ write: PlannedIngestWrite,
        whenDone: @escaping @Sendable (Result<PlannedIngestOutcome, any Error>) -> Void)
}

extension DriverIngestPipeline {
    /// This process's own, unless the conformer says otherwise.
    public var scope: StateScope { .process }

    /// One `load(driverID:)` after another, for pipelines whose reads cost no round trip.
    public func load(driverIDs: [String]) async throws -> [String: VersionedIngestState] {
        var states: [String: VersionedIngestState] = [:]
        for driverID in driverIDs { states[driverID] = try await load(driverID: driverID) }
        return states
    }
}
