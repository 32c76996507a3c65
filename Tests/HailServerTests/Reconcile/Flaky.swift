import Foundation
import HailCore
import HailServer
import Synchronization

/// What a flaky fake refuses while `failing` is set: a unit-test stand-in for a backend refusing connections.
struct BackendRefused: Error {}

/// The embedded ingest state, whose trip-record writes and reads fail while `failing` is set (Redis refusing).
final class FlakyIngestStore: DriverIngestStore {
    let base = MemoryDriverIngestStore()
    let failing = Mutex(false)

    private func check() throws { if failing.withLock({ $0 }) { throw BackendRefused() } }

    func state(driverID: String) async throws -> DriverIngestState? { base.state(driverID: driverID) }
    func states(driverIDs: [String]) async throws -> [String: DriverIngestState] { base.states(driverIDs: driverIDs) }
    func advance(driverID: String, to seq: Int64) async throws -> DriverIngestState? {
        try check()
        return base.advance(driverID: driverID, to: seq)
    }
    func rewind(driverID: String, from seq: Int64, to previous: Int64?, filter: LocationFilter) async throws {
        base.rewind(driverID: driverID, from: seq, to: previous, filter: filter)
    }
    func saveFix(driverID: String, filter: LocationFilter, position: DriverLocation?) async throws {
        base.saveFix(driverID: driverID, filter: filter, position: position)
    }
    func setStatus(driverID: String, online: Bool, degraded: Bool) async throws {
        base.setStatus(driverID: driverID, online: online, degraded: degraded)
    }
    func recordTrip(_ record: TripRecord) async throws {
        try check()
        base.recordTrip(record)
    }
    func releaseTrip(_ tripID: String, driverID: String) async throws {
        try check()
        base.releaseTrip(tripID, driverID: driverID)
    }
    func loadedTrip(_ record: TripRecord?, driverID: String) async throws {
        try check()
        base.loadedTrip(record, driverID: driverID)
    }
    func tripMarks(driverIDs: [String]) async throws -> [String: DriverTripMark] {
        try check()
        return base.tripMarks(driverIDs: driverIDs)
    }
    func repairTrip(_ write: DriverTripRepair.Write) async throws -> Bool {
        try check()
        return base.repairTrip(write)
    }
}

/// The in-process bus, refusing publishes (nothing delivered, `publishConfirmed` false) while `refusing` is set.
final class FlakyBus: TripBus {
    let base = InProcessTripBus()
    let refusing = Mutex(false)

    func publish(_ message: BusMessage, to topic: BusTopic) async { _ = await publishConfirmed(message, to: topic) }
    func publishConfirmed(_ message: BusMessage, to topic: BusTopic) async -> Bool {
        guard !refusing.withLock({ $0 }) else { return false }
        await base.publish(message, to: topic)
        return true
    }
    func subscribe(to topic: BusTopic) async -> BusSubscription { await base.subscribe(to: topic) }
    func subscribe(to topic: BusTopic, sink: @escaping BusSink, onEnd: @escaping @Sendable () -> Void) async
        -> BusSubscription
    {
        await base.subscribe(to: topic, sink: sink, onEnd: onEnd)
    }
}

/// A memory trip store whose commits fail while `failing` is set (PostgreSQL down), and whose reads of one trip or
/// of a driver's active trip wait while held (a stream's setup stuck on storage).
final class FlakyTripStore: TripStore {
    let base = MemoryTripStore()
    let failing = Mutex(false)
    /// Reads of one trip left to pass before they fail; nil: none fail.
    private let readsBeforeFailing = Mutex<Int?>(nil)
    private let gate = Mutex<(held: Bool, passes: Int, waiters: [CheckedContinuation<Void, Never>])>((false, 0, []))

    /// Makes the reads after the next `passing` wait until `release()` (an upgrade reads the trip before the
    /// stream's setup does).
    func hold(afterPassing passing: Int = 0) { gate.withLock { $0 = (true, passing, $0.waiters) } }

    /// Makes reads of one trip fail after the next `passing`; nil: they work again.
    func failReads(afterPassing passing: Int?) { readsBeforeFailing.withLock { $0 = passing } }

    /// Lets every waiting and later `record(id:)` through.
    func release() {
        let waiters = gate.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state = (false, 0, []) }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// How many reads are waiting.
    var waiting: Int { gate.withLock { $0.waiters.count } }

    private func passGate() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let go = gate.withLock { state -> Bool in
                guard state.held else { return true }
                if state.passes > 0 {
                    state.passes -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if go { continuation.resume() }
        }
    }

    func record(id: String) async throws -> TripRecord? {
        await passGate()
        let fails = readsBeforeFailing.withLock { left -> Bool in
            guard let remaining = left else { return false }
            if remaining > 0 {
                left = remaining - 1
                return false
            }
            return true
        }
        if fails { throw BackendRefused() }
        return await base.record(id: id)
    }
    func activeRecord(riderID: String) async throws -> TripRecord? { await base.activeRecord(riderID: riderID) }
    func activeRecord(driverID: String) async throws -> TripRecord? {
        await passGate()
        return await base.activeRecord(driverID: driverID)
    }
    func activeRecords() async throws -> [TripRecord] { await base.activeRecords() }
    func commit(_ commit: TripCommit) async throws -> CommitOutcome {
        if failing.withLock({ $0 }) { throw BackendRefused() }
        return await base.commit(commit)
    }
    func events(tripID: String) async throws -> [TripEventRecord] { await base.events(tripID: tripID) }
    func storedResponse(for scope: IdempotencyScope) async throws -> StoredResponse? {
        await base.storedResponse(for: scope)
    }
    func unpublished(committedBefore: Date, limit: Int) async throws -> [TripRecord] {
        await base.unpublished(committedBefore: committedBefore, limit: limit)
    }
    func markPublished(_ versions: [String: Int]) async throws { await base.markPublished(versions) }
    func saveDevice(_ device: DeviceTokenRecord) async throws { await base.saveDevice(device) }
    func device(principal: String) async throws -> DeviceTokenRecord? { await base.device(principal: principal) }
    func removeDevice(principal: String) async throws { await base.removeDevice(principal: principal) }
    func saveLiveActivity(_ activity: LiveActivityTokenRecord) async throws { await base.saveLiveActivity(activity) }
    func liveActivity(tripID: String) async throws -> LiveActivityTokenRecord? {
        await base.liveActivity(tripID: tripID)
    }
    func removeLiveActivity(tripID: String) async throws { await base.removeLiveActivity(tripID: tripID) }
    func removePushToken(_ token: String) async throws { await base.removePushToken(token) }
}
