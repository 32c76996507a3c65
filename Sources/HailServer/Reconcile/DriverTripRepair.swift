import HailCore

/// Whether a driver's shared state (Redis, scaled; memory, embedded) says the trip the trip store says they
/// serve, and the write that makes it so. Pure: the reconciler reads the mark, then the trip store, and
/// carries out the decision as a conditional write (`DriverIngestStore.repairTrip`), so a change recorded
/// between the reads and the write is never undone.
///
/// The trip store is the truth; the mark is derived from it after each commit, and a write that failed (Redis
/// refusing, a lost reply, a crash between commit and write) leaves it behind. A driver marked as serving a trip
/// that ended is never offered another; one marked before a trip started has none of its fixes in the fare.
public enum DriverTripRepair {
    /// A repair: the mark to write over `expected`, with the active record stored beside it.
    public struct Write: Sendable, Hashable {
        /// The driver.
        public var driverID: String
        /// The mark read before deciding; the write is skipped if it changed.
        public var expected: DriverTripMark
        /// The mark to write.
        public var mark: DriverTripMark
        /// The trip the driver serves, stored for ingest (nil when `mark` is not active).
        public var record: TripRecord?

        /// Creates a write.
        public init(driverID: String, expected: DriverTripMark, mark: DriverTripMark, record: TripRecord?) {
            self.driverID = driverID
            self.expected = expected
            self.mark = mark
            self.record = record
        }
    }

    /// What to do about one driver.
    public enum Decision: Sendable, Hashable {
        /// The mark says what the trip store says (or something newer).
        case agrees
        /// The mark is behind: write this.
        case write(Write)
    }

    /// The trip to read afresh before deciding: the one marked active, when the trip store's active trip for the
    /// driver is another (or none). Its fresh record tells an ended trip from a read that was itself stale.
    public static func lookUp(stored: DriverTripMark, active: TripRecord?) -> String? {
        guard stored.active, !stored.tripID.isEmpty, stored.tripID != active?.trip.id else { return nil }
        return stored.tripID
    }

    /// Decides for `driverID` from the mark (`stored`, read first), the trip store's active trip for the driver
    /// (`active`) and, when `lookUp` named one, the marked trip's record as read after the mark (`current`).
    public static func decide(
        driverID: String, stored: DriverTripMark, active: TripRecord?, current: TripRecord?
    ) -> Decision {
        if let active, stored.tripID == active.trip.id {
            // The same trip: only a newer version is written, so a read that lags a change never undoes it.
            return stored.version >= active.trip.version ? .agrees : write(active, over: stored, for: driverID)
        }
        if stored.active, let current, current.trip.id == stored.tripID, current.driverID == driverID,
            current.trip.state.isActive
        {
            // Still the driver's active trip by a read made after the mark: the active read was the stale one.
            return current.trip.version > stored.version ? write(current, over: stored, for: driverID) : .agrees
        }
        if let active { return write(active, over: stored, for: driverID) }
        guard stored.active else { return .agrees }
        // The marked trip ended, went back to searching without this driver, or is gone: the driver serves none.
        let version = max(stored.version, current.map { $0.trip.id == stored.tripID ? $0.trip.version : 0 } ?? 0)
        return .write(
            Write(
                driverID: driverID, expected: stored,
                mark: DriverTripMark(tripID: stored.tripID, version: version, active: false), record: nil))
    }

    private static func write(_ record: TripRecord, over stored: DriverTripMark, for driverID: String) -> Decision {
        let serving = record.trip.state.isActive && record.driverID == driverID
        return .write(
            Write(
                driverID: driverID, expected: stored,
                mark: DriverTripMark(tripID: record.trip.id, version: record.trip.version, active: serving),
                record: serving ? record : nil))
    }
}
