import Foundation
import HailCore
import Synchronization

/// What every node must agree on about one driver between two batches: the last seq applied, the
/// location filter's reference fix, online status, the last published position and the trip served.
public struct DriverIngestState: Codable, Sendable, Hashable {
    /// The newest batch seq applied; older or equal ones are acknowledged and ignored.
    public var lastSeq: Int64?
    /// The server-side filter, whose reference is the last fix it accepted.
    public var filter = LocationFilter()
    /// Online (offered trips, in the geo index).
    public var online = false
    /// The phone reports degraded location.
    public var degraded = false
    /// False while no status is stored: never reported, or lost with the rest of the shared state (Redis flushed,
    /// restarted empty, the key evicted) while the trip's fields came back first. `online` is then no answer.
    public var statusKnown = false
    /// The last published position.
    public var position: DriverLocation?
    /// The active trip the driver serves, if any.
    public var trip: TripRecord? {
        get { tripBox?.record }
        set { tripBox = newValue.map(TripRecordBox.init) }
    }
    /// False until the trip served has been looked up or recorded (a driver first seen after a restart).
    public var tripKnown = false
    /// `trip`, out of line: 8 bytes here for the idle drivers that serve none (see `TripRecordBox`).
    private var tripBox: TripRecordBox?

    private enum CodingKeys: String, CodingKey {
        case lastSeq, filter, online, degraded, statusKnown, position, tripKnown
        case tripBox = "trip"
    }

    /// A driver nothing is known about.
    public init() {}
}

/// Where drivers' ingest state lives: this process's memory when it is the only node
/// (`MemoryDriverIngestStore`), Redis when several nodes share the drivers (`RedisDriverIngestStore`), so
/// a driver who reconnects to another node is neither rejected nor allowed to go backwards.
public protocol DriverIngestStore: Sendable {
    /// Whether every node sees this state or only this process (`ServerServices.make` refuses a mix).
    var scope: StateScope { get }

    /// The driver's state, nil when nothing is known.
    func state(driverID: String) async throws -> DriverIngestState?
    /// The states of several drivers; unknown ones are absent.
    func states(driverIDs: [String]) async throws -> [String: DriverIngestState]
    /// Takes batch `seq` atomically: when it is newer than the stored seq (or there is none), stores it and
    /// returns the state as it was before (`lastSeq` the previous seq); nil when it is not newer (a
    /// duplicate or replay).
    func advance(driverID: String, to seq: Int64) async throws -> DriverIngestState?
    /// Puts the seq back to `previous` and the filter back to `filter` (as they were before batch `seq`) after that
    /// batch failed half-way, unless a later batch was taken. The filter too: left with the failed batch's newest fix
    /// as its reference, it would refuse the retry's fixes as out of order, and the retry would be acknowledged with
    /// none of them in the trip's history.
    func rewind(driverID: String, from seq: Int64, to previous: Int64?, filter: LocationFilter) async throws
    /// Stores the filter after a batch, and the position when one was published.
    func saveFix(driverID: String, filter: LocationFilter, position: DriverLocation?) async throws
    /// Stores online status.
    func setStatus(driverID: String, online: Bool, degraded: Bool) async throws
    /// Records a committed change of the trip `record.driverID` serves, unless a newer version of the same
    /// trip is stored already; a trip no longer active clears it.
    func recordTrip(_ record: TripRecord) async throws
    /// Clears the trip `tripID` from `driverID` (they gave it up), if it is the one stored.
    func releaseTrip(_ tripID: String, driverID: String) async throws
    /// Stores the trip store's answer for the driver's active trip (`record`, nil for none): a trip is written
    /// unless the same trip is stored at the same or a newer version (so what the trip store says wins over a
    /// stale record, and a late answer never undoes a newer change); "none" only when no trip is recorded.
    func loadedTrip(_ record: TripRecord?, driverID: String) async throws
    /// `loadedTrip` for each of `driverIDs`, whose active trips are `active` (a driver absent there has none):
    /// many streams opening at once store theirs in one round trip.
    func loadedTrips(driverIDs: [String], active: [String: TripRecord]) async throws
    /// The trip each driver's state records, for the drivers whose trip is known (the others are absent).
    func tripMarks(driverIDs: [String]) async throws -> [String: DriverTripMark]
    /// Writes a repair when the driver's trip is still recorded as `write.expected`; false when something
    /// changed it meanwhile (the next reconciliation looks again).
    func repairTrip(_ write: DriverTripRepair.Write) async throws -> Bool
}

extension DriverIngestStore {
    /// One `loadedTrip` after another, for stores whose writes cost no round trip.
    public func loadedTrips(driverIDs: [String], active: [String: TripRecord]) async throws {
        for driverID in driverIDs { try await loadedTrip(active[driverID], driverID: driverID) }
    }
}

/// The embedded ingest state: a dictionary sharded over locks (`ShardedMap`), so batches of drivers on
/// different loops never wait for each other.
public final class MemoryDriverIngestStore: DriverIngestStore {
    private struct Entry: Sendable {
        var state = DriverIngestState()
        /// The newest version recorded per trip, so a late, older change never overwrites a newer one.
        var tripID: String?
        var tripVersion: Int?
    }

    private let entries = ShardedMap<String, Entry>()

    /// Creates an empty store.
    public init() {}

    /// The driver's state.
    public func state(driverID: String) -> DriverIngestState? { entries[driverID]?.state }

    /// Several drivers' states.
    public func states(driverIDs: [String]) -> [String: DriverIngestState] {
        var found: [String: DriverIngestState] = [:]
        for id in driverIDs { if let state = entries[id]?.state { found[id] = state } }
        return found
    }

    /// Advances the seq when `seq` is newer; returns the state before.
    public func advance(driverID: String, to seq: Int64) -> DriverIngestState? {
        entries.withValue(driverID) { stored in
            var entry = stored ?? Entry()
            if let last = entry.state.lastSeq, seq <= last { return nil }
            let before = entry.state
            entry.state.lastSeq = seq
            stored = entry
            return before
        }
    }

    /// What `advanceIfTripKnown` did.
    enum Advance {
        /// The trip the driver serves is not known yet: nothing was taken.
        case tripUnknown
        /// Not newer than the stored seq: nothing was taken.
        case duplicate
        /// Taken; the state as it was before.
        case advanced(DriverIngestState)
    }

    /// `advance`, but only for a driver whose trip is known, in one lock: the network loop's ingest.
    func advanceIfTripKnown(driverID: String, to seq: Int64) -> Advance {
        entries.withValue(driverID) { stored in
            guard var entry = stored, entry.state.tripKnown else { return .tripUnknown }
            if let last = entry.state.lastSeq, seq <= last { return .duplicate }
            let before = entry.state
            entry.state.lastSeq = seq
            stored = entry
            return .advanced(before)
        }
    }

    /// Puts the seq and the filter back unless a later batch was taken.
    public func rewind(driverID: String, from seq: Int64, to previous: Int64?, filter: LocationFilter) {
        entries.withValue(driverID) { stored in
            guard stored?.state.lastSeq == seq else { return }
            stored?.state.lastSeq = previous
            stored?.state.filter = filter
        }
    }

    /// Stores the filter and position.
    public func saveFix(driverID: String, filter: LocationFilter, position: DriverLocation?) {
        entries.withValue(driverID) { stored in
            var entry = stored ?? Entry()
            entry.state.filter = filter
            if let position { entry.state.position = position }
            stored = entry
        }
    }

    /// Stores online status.
    public func setStatus(driverID: String, online: Bool, degraded: Bool) {
        entries.withValue(driverID) { stored in
            var entry = stored ?? Entry()
            entry.state.online = online
            entry.state.degraded = degraded
            entry.state.statusKnown = true
            stored = entry
        }
    }

    /// Records the trip unless a newer version of it is stored.
    public func recordTrip(_ record: TripRecord) {
        guard let driverID = record.driverID else { return }
        entries.withValue(driverID) { stored in
            var entry = stored ?? Entry()
            if entry.tripID == record.trip.id, let version = entry.tripVersion, version >= record.trip.version {
                return
            }
            entry.tripID = record.trip.id
            entry.tripVersion = record.trip.version
            entry.state.trip = record.trip.state.isActive ? record : nil
            entry.state.tripKnown = true
            stored = entry
        }
    }

    /// Clears the trip when it is the one stored.
    public func releaseTrip(_ tripID: String, driverID: String) {
        entries.withValue(driverID) { stored in
            guard stored?.state.trip?.trip.id == tripID else { return }
            stored?.state.trip = nil
        }
    }

    /// Stores a looked-up trip unless the same trip is stored at its version or newer; none only when no trip
    /// is known.
    public func loadedTrip(_ record: TripRecord?, driverID: String) {
        entries.withValue(driverID) { stored in
            var entry = stored ?? Entry()
            if let record {
                if entry.tripID == record.trip.id, let version = entry.tripVersion, version >= record.trip.version {
                    return
                }
                entry.tripID = record.trip.id
                entry.tripVersion = record.trip.version
            } else if entry.state.tripKnown {
                return
            }
            entry.state.trip = record
            entry.state.tripKnown = true
            stored = entry
        }
    }

    /// The marks of the drivers whose trip is known.
    public func tripMarks(driverIDs: [String]) -> [String: DriverTripMark] {
        var marks: [String: DriverTripMark] = [:]
        for id in driverIDs {
            guard let entry = entries[id], entry.state.tripKnown else { continue }
            marks[id] = Self.mark(entry)
        }
        return marks
    }

    /// Writes the repair if the mark is unchanged.
    public func repairTrip(_ write: DriverTripRepair.Write) -> Bool {
        entries.withValue(write.driverID) { stored in
            guard var entry = stored, entry.state.tripKnown, Self.mark(entry) == write.expected else { return false }
            entry.tripID = write.mark.tripID.isEmpty ? nil : write.mark.tripID
            entry.tripVersion = write.mark.tripID.isEmpty ? nil : write.mark.version
            entry.state.trip = write.record
            stored = entry
            return true
        }
    }

    private static func mark(_ entry: Entry) -> DriverTripMark {
        DriverTripMark(tripID: entry.tripID ?? "", version: entry.tripVersion ?? 0, active: entry.state.trip != nil)
    }
}

extension DriverIngestStore {
    /// This process's own, unless the conformer says otherwise.
    public var scope: StateScope { .process }
}
