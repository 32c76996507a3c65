import Foundation
import HailCore
import HailDriver
import HailStorage
import Testing

@testable import HailAppStore

@Suite("The driver's saved state, written a little at a time")
struct SQLiteOutboxStoreTests {
    static let start = Date(timeIntervalSince1970: 1_796_220_000.123_456)

    /// The `index`-th fix of a drive, a second apart.
    static func fix(_ index: Int) -> LocationPoint {
        LocationPoint(
            lat: 43.73 + Double(index) * 0.0001, lng: 7.42, accuracy: 5, heading: 90, speed: 10,
            t: start.addingTimeInterval(Double(index)))
    }

    static func state(points: ClosedRange<Int>?, nextSeq: Int64, online: Bool = true, outbox: Outbox = Outbox())
        -> DriverSavedState
    {
        DriverSavedState(
            outbox: outbox,
            batcher: LocationBatcher.Snapshot(nextSeq: nextSeq, points: points.map { $0.map(fix) } ?? []),
            trip: nil, online: online)
    }

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hail-outbox-\(UUID().uuidString).db").path
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    @Test func everySaveComesBackExactlyAfterReopening() async throws {
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        var outbox = Outbox()
        _ = outbox.enqueue(DriverIntent(.ended, tripID: "trip-1"), key: UUID(), now: Self.start)
        let saves = [
            Self.state(points: 1...5, nextSeq: 3),
            // Acked from the front, new fixes at the back.
            Self.state(points: 3...8, nextSeq: 4),
            // The tap waits on disk.
            Self.state(points: 3...8, nextSeq: 4, outbox: outbox),
            // Everything acknowledged.
            Self.state(points: nil, nextSeq: 6, outbox: outbox),
            Self.state(points: 9...9, nextSeq: 6, online: false),
        ]
        for expected in saves {
            let store = try await SQLiteOutboxStore(path: path)
            _ = try await store.load()
            try await store.save(expected)
            #expect(try await SQLiteOutboxStore(path: path).load() == expected)
        }
    }

    @Test func acknowledgedPointsLeaveTheFrontAndNewOnesJoinTheBackAndNothingElseIsWritten() throws {
        let first = try SQLiteOutboxStore.plan(Self.state(points: 1...5, nextSeq: 3), after: nil)
        #expect(first.rewriteAll)
        #expect(first.appended.map(\.0) == [1, 2, 3, 4, 5])
        #expect(first.meta?.nextSeq == 3)
        // Points 1 and 2 acknowledged, 6 and 7 taken: two rows deleted by key, two inserted, the meta row untouched.
        let second = try SQLiteOutboxStore.plan(Self.state(points: 3...7, nextSeq: 3), after: first.after)
        #expect(second.rewriteAll == false)
        #expect(second.firstKeptKey == 3)
        #expect(second.appended.map(\.0) == [6, 7])
        #expect(second.meta == nil)
        // A new batch moves the seq: the meta row is written, no point row is.
        let third = try SQLiteOutboxStore.plan(Self.state(points: 3...7, nextSeq: 4), after: second.after)
        #expect(third.firstKeptKey == nil)
        #expect(third.appended.isEmpty)
        #expect(third.meta?.nextSeq == 4)
        // All acknowledged.
        let fourth = try SQLiteOutboxStore.plan(Self.state(points: nil, nextSeq: 4), after: third.after)
        #expect(fourth.dropAllPoints)
        #expect(fourth.appended.isEmpty)
    }

    @Test func aBufferThinnedInTheMiddleIsWrittenAgainWhole() throws {
        let before = try SQLiteOutboxStore.plan(Self.state(points: 1...6, nextSeq: 2), after: nil).after
        var thinned = Self.state(points: 1...6, nextSeq: 2)
        thinned.batcher.points.remove(at: 3)
        let plan = try SQLiteOutboxStore.plan(thinned, after: before)
        // Every row goes and the five points left come again, under new keys.
        #expect(plan.dropAllPoints)
        #expect(plan.appended.map(\.0) == [7, 8, 9, 10, 11])
        #expect(plan.after.state.batcher.points == thinned.batcher.points)
    }

    @Test func aStateSavedWholeByAnEarlierVersionIsReadAndRewrittenInRows() async throws {
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        let old = Self.state(points: 1...3, nextSeq: 2)
        let earlier = try await SQLiteDatabase.open(.file(path), migrations: [SQLiteOutboxStore.migrations[0]])
        let json = String(decoding: try JSONEncoder().encode(old), as: UTF8.self)
        _ = try await earlier.write { try $0.run("INSERT INTO driver_state (id, json) VALUES (1, ?)", json) }
        try await earlier.close()
        let store = try await SQLiteOutboxStore(path: path)
        #expect(try await store.load() == old)
        let next = Self.state(points: 2...4, nextSeq: 3)
        try await store.save(next)
        #expect(try await SQLiteOutboxStore(path: path).load() == next)
        let check = try await SQLiteDatabase.open(.file(path), migrations: SQLiteOutboxStore.migrations)
        let wholeRows = try await check.read { try $0.query("SELECT json FROM driver_state").count }
        #expect(wholeRows == 0)
        try await check.close()
    }
}
