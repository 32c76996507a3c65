import Dispatch
import Foundation
import HailCore
import HailServer
import HailStorage
import HailTesting
import Synchronization
import Testing

@Suite("History group commit on a real SQLite file")
struct HistoryGroupCommitTests {
    /// A fresh database path in the temporary directory.
    static func temporaryDatabase() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hail-history-\(UUID().uuidString).db").path
    }

    /// Removes the database and its WAL files.
    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// A migrated database on `path`, opened the way `SQLiteTripStores.open` opens it.
    static func database(_ path: String) async throws -> SQLiteDatabase {
        try await SQLiteDatabase.open(.file(path), migrations: SQLiteTripStores.migrations)
    }

    /// The point `index` seconds into the trip, its position derived from the index so each one is distinct; every
    /// fourth has no heading and no speed, as a phone that knew neither sends it; every fifth from the sixth is marked
    /// where the car stood at a start.
    static func point(_ index: Int, lat: Double? = nil) -> HistoryPoint {
        HistoryPoint(
            coordinate: Coordinate(lat: lat ?? 52.5 + Double(index) / 10_000, lng: 13.4),
            t: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)),
            receivedAt: Date(timeIntervalSince1970: 1_700_000_000.5 + Double(index)), backlog: index % 3 == 0,
            heading: index % 4 == 0 ? nil : Double(index % 360) + 0.25, speed: index % 4 == 0 ? nil : 13.5,
            standing: index % 5 == 1 && index > 1)
    }

    /// How many history rows the file holds for `tripID`, read on a connection of its own. The other tests read
    /// through the store's reader connection, which is just as separate from the writer and opens only once.
    static func storedCount(_ path: String, tripID: String) throws -> Int {
        let connection = try SQLiteConnection(.file(path), migrations: SQLiteTripStores.migrations)
        defer { try? connection.close() }
        return try connection.firstRow("SELECT count(*) FROM location_history WHERE trip_id = ?", tripID)?
            .value(0, as: Int.self) ?? -1
    }

    /// Commits `trip-1` at `state` with `driver-1`, as the authority would.
    static func commit(_ stores: SQLiteTripStores, state: TripState, version: Int) async throws {
        let driver = Driver(
            id: "driver-1", name: "Ana", carModel: "Zoe", plate: "MC-1", rating: 4.9,
            photoURL: URL(string: "https://example.invalid/ana.jpg")!)
        let trip = Trip(
            id: "trip-1", state: state, pickup: Coordinate(lat: 52.5, lng: 13.4),
            dropoff: Coordinate(lat: 52.51, lng: 13.41), productID: .economy, version: version, driver: driver)
        let event = TripEventRecord(
            tripID: "trip-1", version: version, intent: "step\(version)", actor: "driver:driver-1", state: state,
            at: Date(timeIntervalSince1970: 1_700_000_000 + Double(version)))
        let commit = TripCommit(
            record: TripRecord(trip: trip, riderID: "rider-1"), expectedVersion: version == 1 ? nil : version - 1,
            event: event)
        #expect(try await stores.trips.commit(commit) == .committed)
    }

    /// Appends `points` to `trip-1` on condition that `driverID` has it under way; returns once committed.
    static func appendUnderWay(_ stores: SQLiteTripStores, by driverID: String, _ points: [HistoryPoint]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            stores.history.append(tripID: "trip-1", underWayBy: driverID, points: points) {
                continuation.resume(with: $0)
            }
        }
    }

    @Test func fixesJoinATripsHistoryOnlyWhileItIsUnderWayWithTheirDriver() async throws {
        let path = Self.temporaryDatabase()
        defer { Self.remove(path) }
        let stores = try await SQLiteTripStores.open(path: path)
        try await Self.commit(stores, state: .driverArrived, version: 1)
        try await Self.appendUnderWay(stores, by: "driver-1", [Self.point(1)])
        try await Self.commit(stores, state: .onTrip, version: 2)
        try await Self.appendUnderWay(stores, by: "driver-2", [Self.point(2)])
        try await Self.appendUnderWay(stores, by: "driver-1", [Self.point(3), Self.point(4)])
        try await Self.commit(stores, state: .completed, version: 3)
        try await Self.appendUnderWay(stores, by: "driver-1", [Self.point(5)])
        let history = try await stores.history.history(tripID: "trip-1")
        #expect(history.map(\.t) == [Self.point(3).t, Self.point(4).t])
    }

    @Test("A history written before headings and start points were stored reads back with none, new points keep theirs")
    func aHistoryFromBeforeHeadingsReadsBackWithNone() async throws {
        let path = Self.temporaryDatabase()
        defer { Self.remove(path) }
        // The schema as it was before the heading and speed columns, with one point in it.
        let old = try SQLiteConnection(.file(path), migrations: Array(SQLiteTripStores.migrations.prefix(2)))
        try old.run(
            "INSERT INTO location_history (trip_id, t, received_at, lat, lng, backlog) VALUES (?, ?, ?, ?, ?, ?)",
            "trip-1", 1_700_000_001.0, 1_700_000_001.5, 52.5001, 13.4, false)
        try old.close()
        let stores = try await SQLiteTripStores.open(path: path)
        try await stores.history.append(tripID: "trip-1", points: [Self.point(2), Self.point(6)])
        let history = try await stores.history.history(tripID: "trip-1")
        #expect(history.count == 3)
        #expect(history.first?.coordinate == Coordinate(lat: 52.5001, lng: 13.4))
        #expect(history.first?.heading == nil && history.first?.speed == nil && history.first?.standing == false)
        #expect(history.dropFirst() == [Self.point(2), Self.point(6)])
        #expect(history[1].heading == 2.25 && history[1].speed == 13.5 && !history[1].standing)
        #expect(history[2].standing)
    }

    @Test func twoHundredAppendsFromEightThreadsAllCommitInFewerTransactions() async throws {
        let path = Self.temporaryDatabase()
        defer { Self.remove(path) }
        let stores = try await SQLiteTripStores.open(path: path)
        let history = stores.history
        let completions = Completions(expected: 200)
        // Eight real threads, each interleaving its share of the indices, none waiting for its own completions:
        // the way network loop threads append.
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for index in stride(from: thread, to: 200, by: 8) {
                    history.append(tripID: "trip-1", points: [Self.point(index)], whenCommitted: completions.record)
                }
            }
        }
        let results = await completions.all()
        #expect(results.count == 200)
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        #expect(try await history.history(tripID: "trip-1") == (0..<200).map { Self.point($0) })
        let statistics = history.statistics
        #expect(statistics.committedAppends == 200)
        #expect(statistics.committedGroups >= 1)
        #expect(statistics.committedGroups < 200)
        #expect(statistics.failedGroups == 0)
        #expect(statistics.failedAppends == 0)
    }

    @Test func appendsMadeWhileTheWriterIsBusyShareOneTransaction() async throws {
        let path = Self.temporaryDatabase()
        defer { Self.remove(path) }
        let database = try await Self.database(path)
        let history = SQLiteLocationHistoryStore(database: database)
        let gate = await WriterGate.hold(database)
        let completions = Completions(expected: 50)
        for index in 0..<50 {
            history.append(tripID: "trip-1", points: [Self.point(index)], whenCommitted: completions.record)
        }
        gate.release()
        let results = await completions.all()
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        #expect(history.statistics.committedGroups == 1)
        #expect(history.statistics.committedAppends == 50)
        #expect(try await history.history(tripID: "trip-1").count == 50)
    }

    @Test func aCompletionSeesItsPointsOnAFreshConnectionAndThroughTheStore() async throws {
        let path = Self.temporaryDatabase()
        defer { Self.remove(path) }
        let stores = try await SQLiteTripStores.open(path: path)
        let points = (0..<3).map { Self.point($0) }
        let countInsideCompletion = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<Int, any Error>) in
            stores.history.append(tripID: "trip-1", points: points) { result in
                continuation.resume(with: result.flatMap { Result { try Self.storedCount(path, tripID: "trip-1") } })
            }
        }
        #expect(countInsideCompletion == 3)
        #expect(try await stores.history.history(tripID: "trip-1") == points)
        // The async append goes through the same group commit.
        try await stores.history.append(tripID: "trip-1", points: [Self.point(3)])
        #expect(try await stores.history.history(tripID: "trip-1").count == 4)
        #expect(stores.history.statistics.committedAppends == 2)
    }

    /// Issue 14: the driver's last fix, handed to the group commit by the network loop a few milliseconds before the
    /// end tap's request priced the trip, was still in a group when the fare read the history, and went unpriced.
    @Test func aReadRightAfterAnAppendNotWaitedForSeesItsPoints() async throws {
        let path = Self.temporaryDatabase()
        defer { Self.remove(path) }
        let stores = try await SQLiteTripStores.open(path: path)
        let completions = Completions(expected: 50)
        for index in 0..<50 {
            stores.history.append(tripID: "trip-1", points: [Self.point(index)], whenCommitted: completions.record)
        }
        let read = try await stores.history.history(tripID: "trip-1")
        #expect(read.count == 50)
        #expect(read.last?.t == Self.point(49).t)
        _ = await completions.all()
    }

    @Test func duplicateDeviceTimesAreIgnoredWithinAndAcrossAppends() async throws {
        let path = Self.temporaryDatabase()
        defer { Self.remove(path) }
        let database = try await Self.database(path)
        let history = SQLiteLocationHistoryStore(database: database)
        // Three appends in one group: the second repeats the first's device time 1 at another position, the
        // third holds the same device time twice.
        let gate = await WriterGate.hold(database)
        let completions = Completions(expected: 3)
        history.append(tripID: "trip-1", points: [Self.point(0), Self.point(1)], whenCommitted: completions.record)
        history.append(
            tripID: "trip-1", points: [Self.point(1, lat: 10), Self.point(2)], whenCommitted: completions.record)
        history.append(
            tripID: "trip-1", points: [Self.point(3), Self.point(3, lat: 11)], whenCommitted: completions.record)
        gate.release()
        #expect(await completions.all().allSatisfy { (try? $0.get()) != nil })
        // A resend in a later group, as after a reconnect.
        try await history.append(tripID: "trip-1", points: [Self.point(2, lat: 12), Self.point(4)])
        #expect(try await history.history(tripID: "trip-1") == (0..<5).map { Self.point($0) })
        #expect(history.statistics.committedGroups == 2)
    }

    @Test func emptyPointsCompleteAtOnceAndCommitNothing() async throws {
        let path = Self.temporaryDatabase()
        defer { Self.remove(path) }
        let stores = try await SQLiteTripStores.open(path: path)
        let completed = Mutex<Result<Void, any Error>?>(nil)
        stores.history.append(tripID: "trip-1", points: []) { result in completed.withLock { $0 = result } }
        // Completed inside the call, before append returned.
        #expect(completed.withLock { $0.map { (try? $0.get()) != nil } } == true)
        try await stores.history.append(tripID: "trip-1", points: [])
        let statistics = stores.history.statistics
        #expect(statistics.committedGroups == 0)
        #expect(statistics.committedAppends == 0)
        #expect(statistics.failedGroups == 0)
        #expect(try await stores.history.history(tripID: "trip-1").isEmpty)
    }

    @Test func aGroupWhoseDatabaseClosesFailsEveryAppendAndWritesNone() async throws {
        let path = Self.temporaryDatabase()
        defer { Self.remove(path) }
        let database = try await Self.database(path)
        let history = SQLiteLocationHistoryStore(database: database)
        // The gate closes the writing connection as it lets go, so the group queued behind it cannot begin.
        let gate = await WriterGate.hold(database, closingConnection: true)
        let completions = Completions(expected: 5)
        for index in 0..<5 {
            history.append(tripID: "trip-\(index)", points: [Self.point(index)], whenCommitted: completions.record)
        }
        gate.release()
        let results = await completions.all()
        #expect(results.count == 5)
        for result in results {
            #expect((result.failure as? SQLiteError)?.kind == .closed)
        }
        #expect(history.statistics.failedGroups == 1)
        #expect(history.statistics.failedAppends == 5)
        #expect(history.statistics.committedAppends == 0)
        for index in 0..<5 { #expect(try await history.history(tripID: "trip-\(index)").count == 0) }
    }

    @Test func anErrorThatEndsTheTransactionMidGroupUndoesTheAppendsBeforeIt() async throws {
        let path = Self.temporaryDatabase()
        defer { Self.remove(path) }
        let database = try await Self.database(path)
        // A latitude of 95 rolls back the whole transaction, as an I/O error or a full disk would.
        try await database.withConnection { connection in
            try connection.execute(
                """
                CREATE TRIGGER poison BEFORE INSERT ON location_history WHEN NEW.lat > 90
                BEGIN SELECT RAISE(ROLLBACK, 'poisoned point'); END
                """)
        }
        let history = SQLiteLocationHistoryStore(database: database)
        let gate = await WriterGate.hold(database)
        let completions = Completions(expected: 3)
        history.append(tripID: "trip-a", points: [Self.point(0), Self.point(1)], whenCommitted: completions.record)
        history.append(tripID: "trip-b", points: [Self.point(2, lat: 95)], whenCommitted: completions.record)
        history.append(tripID: "trip-c", points: [Self.point(3)], whenCommitted: completions.record)
        gate.release()
        let results = await completions.all()
        #expect(results.count == 3)
        #expect(results.allSatisfy { $0.failure != nil })
        #expect(history.statistics.failedGroups == 1)
        #expect(history.statistics.committedGroups == 0)
        for trip in ["trip-a", "trip-b", "trip-c"] { #expect(try await history.history(tripID: trip).count == 0) }
    }

    @Test func aBatchThatFailsAloneLeavesNothingHalfWrittenAndTheRestOfItsGroupCommits() async throws {
        let path = Self.temporaryDatabase()
        defer { Self.remove(path) }
        let database = try await Self.database(path)
        // A latitude of 95 aborts only its own statement; the transaction stays open.
        try await database.withConnection { connection in
            try connection.execute(
                """
                CREATE TRIGGER bad_fix BEFORE INSERT ON location_history WHEN NEW.lat > 90
                BEGIN SELECT RAISE(ABORT, 'latitude out of range'); END
                """)
        }
        let history = SQLiteLocationHistoryStore(database: database)
        let gate = await WriterGate.hold(database)
        let completions = Completions(expected: 3)
        history.append(tripID: "trip-a", points: [Self.point(0)], whenCommitted: completions.record)
        // Its first point is good and inserted before the second fails: it must not stay.
        history.append(
            tripID: "trip-b", points: [Self.point(1), Self.point(2, lat: 95)], whenCommitted: completions.record)
        history.append(tripID: "trip-c", points: [Self.point(3)], whenCommitted: completions.record)
        gate.release()
        let results = await completions.all()
        #expect(results.filter { $0.failure != nil }.count == 1)
        #expect(history.statistics.committedGroups == 1)
        #expect(history.statistics.committedAppends == 2)
        #expect(history.statistics.failedAppends == 1)
        #expect(try await history.history(tripID: "trip-a").count == 1)
        #expect(try await history.history(tripID: "trip-b").count == 0)
        #expect(try await history.history(tripID: "trip-c").count == 1)
    }

    @Test func appendsPendingWhenTheStoreIsDroppedStillCommit() async throws {
        let path = Self.temporaryDatabase()
        defer { Self.remove(path) }
        let completions = Completions(expected: 3)
        let gate: WriterGate
        do {
            let database = try await Self.database(path)
            let history = SQLiteLocationHistoryStore(database: database)
            gate = await WriterGate.hold(database)
            for index in 0..<3 {
                history.append(tripID: "trip-1", points: [Self.point(index)], whenCommitted: completions.record)
            }
        }
        // The test holds neither the store nor the database any more; only the queued drain does.
        gate.release()
        #expect(await completions.all().allSatisfy { (try? $0.get()) != nil })
        #expect(try Self.storedCount(path, tripID: "trip-1") == 3)
    }

    @Test func theDefaultCallbackAppendRunsTheAsyncOne() async throws {
        let history = MemoryLocationHistoryStore()
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            history.append(tripID: "trip-1", points: [Self.point(0)]) {
                continuation.resume(returning: $0.failure == nil)
            }
        }
        #expect(result)
        #expect(await history.history(tripID: "trip-1") == [Self.point(0)])
    }
}

/// Holds a database's writer thread, so that appends made meanwhile queue up and commit as one group.
private final class WriterGate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    /// Occupies the writer thread and returns once it is held; closes the writing connection on release if asked.
    static func hold(_ database: SQLiteDatabase, closingConnection: Bool = false) async -> WriterGate {
        let gate = WriterGate()
        await withCheckedContinuation { (entered: CheckedContinuation<Void, Never>) in
            Task {
                try? await database.withConnection { connection in
                    entered.resume()
                    // Blocking is the point here: this is the database's own thread, and nothing else waits on it.
                    gate.semaphore.wait()
                    if closingConnection { try connection.close() }
                }
            }
        }
        return gate
    }

    /// Lets the writer thread go on to the queued work.
    func release() { semaphore.signal() }
}

extension Result {
    /// The error, or nil on success.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
