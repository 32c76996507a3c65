import HailCore

/// What the driver app keeps on disk so a killed app carries on: the outbox, the batcher's unacknowledged
/// points and next seq, the last trip it knew and whether the driver was online.
public struct DriverSavedState: Codable, Sendable, Hashable {
    /// Trip actions not yet confirmed, and refusals not yet shown.
    public var outbox: Outbox
    /// The next seq and every fix the server has not acknowledged.
    public var batcher: LocationBatcher.Snapshot
    /// The last trip the app knew, shown until the server answers after a restart.
    public var trip: Trip?
    /// True when the driver was online.
    public var online: Bool

    /// Creates a saved state.
    public init(outbox: Outbox, batcher: LocationBatcher.Snapshot, trip: Trip?, online: Bool) {
        self.outbox = outbox
        self.batcher = batcher
        self.trip = trip
        self.online = online
    }
}
