import Foundation
import HailCore

/// A trip store in memory: for unit tests and throwaway runs. Everything is lost with the process.
public actor MemoryTripStore: TripStore {
    private var records: [String: TripRecord] = [:]
    private var log: [String: [TripEventRecord]] = [:]
    private var responses: [IdempotencyScope: StoredResponse] = [:]
    private var devices: [String: DeviceTokenRecord] = [:]
    private var activities: [String: LiveActivityTokenRecord] = [:]
    private var published: [String: Int] = [:]

    /// Creates an empty store.
    public init() {}

    /// The trip with `id`.
    public func record(id: String) -> TripRecord? { records[id] }

    /// The rider's active trip.
    public func activeRecord(riderID: String) -> TripRecord? {
        records.values.filter { $0.riderID == riderID && $0.trip.state.isActive }.sorted { $0.trip.id < $1.trip.id }
            .first
    }

    /// The driver's active trip.
    public func activeRecord(driverID: String) -> TripRecord? {
        records.values.filter { $0.driverID == driverID && $0.trip.state.isActive }.sorted { $0.trip.id < $1.trip.id }
            .first
    }

    /// Every active trip.
    public func activeRecords() -> [TripRecord] {
        records.values.filter { $0.trip.state.isActive }.sorted { $0.trip.id < $1.trip.id }
    }

    /// Applies the commit if the version matches and it leaves the rider and the driver one active trip each, as
    /// the SQL stores' unique indexes do.
    public func commit(_ commit: TripCommit) -> CommitOutcome {
        guard records[commit.record.trip.id]?.trip.version == commit.expectedVersion else { return .conflict }
        let record = commit.record
        if record.trip.state.isActive {
            let others = records.values.filter { $0.trip.id != record.trip.id && $0.trip.state.isActive }
            if let held = others.filter({ $0.riderID == record.riderID }).map(\.trip.id).min() {
                return .activeTripTaken(ActiveTripConflict(party: .rider, subject: record.riderID, tripID: held))
            }
            if let driverID = record.driverID,
                let held = others.filter({ $0.driverID == driverID }).map(\.trip.id).min()
            {
                return .activeTripTaken(ActiveTripConflict(party: .driver, subject: driverID, tripID: held))
            }
        }
        if let entry = commit.idempotency {
            guard responses[entry.scope] == nil else { return .conflict }
            responses[entry.scope] = entry.response
        }
        records[commit.record.trip.id] = commit.record
        log[commit.record.trip.id, default: []].append(commit.event)
        return .committed
    }

    /// The audit log.
    public func events(tripID: String) -> [TripEventRecord] { log[tripID] ?? [] }

    /// The stored answer for a key.
    public func storedResponse(for scope: IdempotencyScope) -> StoredResponse? { responses[scope] }

    /// Trips whose newest change is not marked published, oldest change first.
    public func unpublished(committedBefore: Date, limit: Int) -> [TripRecord] {
        records.values.compactMap { record -> (TripRecord, Date)? in
            guard published[record.trip.id, default: 0] < record.trip.version,
                let at = log[record.trip.id]?.last?.at, at < committedBefore
            else { return nil }
            return (record, at)
        }.sorted { ($0.1, $0.0.trip.id) < ($1.1, $1.0.trip.id) }.prefix(limit).map(\.0)
    }

    /// Marks the trips' changes up to their versions as published.
    public func markPublished(_ versions: [String: Int]) {
        for (id, version) in versions { published[id] = max(published[id, default: 0], version) }
    }

    /// Stores the principal's one device; another principal with the same token loses it.
    public func saveDevice(_ device: DeviceTokenRecord) {
        devices = devices.filter { $0.value.token != device.token }
        devices[device.principal] = device
    }

    /// The principal's device.
    public func device(principal: String) -> DeviceTokenRecord? { devices[principal] }

    /// Forgets the principal's device.
    public func removeDevice(principal: String) { devices[principal] = nil }

    /// Stores the trip's Live Activity token.
    public func saveLiveActivity(_ activity: LiveActivityTokenRecord) { activities[activity.tripID] = activity }

    /// The trip's Live Activity token.
    public func liveActivity(tripID: String) -> LiveActivityTokenRecord? { activities[tripID] }

    /// Forgets the trip's Live Activity token.
    public func removeLiveActivity(tripID: String) { activities[tripID] = nil }

    /// Forgets `token` wherever it is.
    public func removePushToken(_ token: String) {
        devices = devices.filter { $0.value.token != token }
        activities = activities.filter { $0.value.token != token }
    }
}

/// A location history in memory, for unit tests.
public actor MemoryLocationHistoryStore: LocationHistoryStore {
    private var points: [String: [HistoryPoint]] = [:]

    /// Creates an empty history.
    public init() {}

    /// Appends points, ignoring any whose device time the trip already has (a resend).
    public func append(tripID: String, points newPoints: [HistoryPoint]) {
        var known = Set((points[tripID] ?? []).map(\.t))
        for point in newPoints where known.insert(point.t).inserted { points[tripID, default: []].append(point) }
    }

    /// The trip's points in device-time order.
    public func history(tripID: String) -> [HistoryPoint] {
        (points[tripID] ?? []).enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(
            \.element)
    }
}
