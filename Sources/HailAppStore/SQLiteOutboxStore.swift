import Foundation
import HailAppSeams
import HailCore
import HailStorage

/// The driver's `OutboxStore` in SQLite, written a little at a time: a save writes only what changed since the
/// last one (the points acknowledged leave from the front, the new fixes join at the back, the outbox, trip and
/// online flag only when they changed), in one transaction, in WAL at `synchronous=NORMAL`.
///
/// The driver app saves on every batch it sends, so this is on the phone's hot path: the whole state as JSON with
/// an fsync each time was battery and flash spent for nothing. NORMAL keeps every committed save through a kill of
/// the app (the WAL is in the OS's hands when the commit returns), the case this store exists for; a power loss
/// may lose the last saves, which the server's idempotency keys and the batcher's seqs make safe to redo.
///
/// It lives in HailAppStore because HailDriver may not import HailStorage; an iOS app links this module with the
/// driver core.
public actor SQLiteOutboxStore: OutboxStore {
    private let database: SQLiteDatabase
    /// What the store holds now, as written by this actor: the base every save is compared with. Nil until the
    /// first load or save, or after a failed write (the next save then rewrites everything).
    private var written: Written?

    struct Written {
        var state: DriverSavedState
        /// The row key of each saved point, in order.
        var pointKeys: [Int64]
        /// The key the next appended point gets.
        var nextKey: Int64
    }

    static let migrations: [SQLiteMigration] = [
        "CREATE TABLE driver_state (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL)",
        """
        CREATE TABLE driver_meta (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            next_seq INTEGER NOT NULL,
            online INTEGER NOT NULL,
            outbox TEXT NOT NULL,
            trip TEXT
        ) STRICT;
        CREATE TABLE driver_points (key INTEGER PRIMARY KEY, point TEXT NOT NULL) STRICT;
        """,
    ]

    /// Opens (or creates) the store at `path`.
    public init(path: String) async throws {
        database = try await SQLiteDatabase.open(
            .file(path), configuration: SQLiteConfiguration(durability: .normal), migrations: Self.migrations,
            separateReader: false)
    }

    /// The saved state, or nil on a first launch. A state saved whole by an earlier version is read too, and
    /// rewritten in rows at the next save.
    public func load() async throws -> DriverSavedState? {
        let stored = try await database.read { connection -> Stored in
            var stored = Stored()
            if let row = try connection.firstRow("SELECT next_seq, online, outbox, trip FROM driver_meta WHERE id = 1")
            {
                stored.meta = (
                    try row.value(0, as: Int64.self), try row.value(1, as: Int64.self) != 0,
                    try row.value(2, as: String.self), row.isNull(3) ? nil : try row.value(3, as: String.self)
                )
            }
            stored.points = try connection.query("SELECT key, point FROM driver_points ORDER BY key").map {
                (try $0.value(0, as: Int64.self), try $0.value(1, as: String.self))
            }
            stored.whole = try connection.firstRow("SELECT json FROM driver_state WHERE id = 1")?.value(
                0, as: String.self)
            return stored
        }
        guard let meta = stored.meta else {
            written = nil
            guard let whole = stored.whole else { return nil }
            return try Self.decoder.decode(DriverSavedState.self, from: Data(whole.utf8))
        }
        let state = DriverSavedState(
            outbox: try Self.decoder.decode(Outbox.self, from: Data(meta.outbox.utf8)),
            batcher: LocationBatcher.Snapshot(
                nextSeq: meta.nextSeq,
                points: try stored.points.map { try Self.decoder.decode(LocationPoint.self, from: Data($0.1.utf8)) }),
            trip: try meta.trip.map { try Self.decoder.decode(Trip.self, from: Data($0.utf8)) },
            online: meta.online)
        written = Written(state: state, pointKeys: stored.points.map(\.0), nextKey: (stored.points.last?.0 ?? 0) + 1)
        return state
    }

    /// The rows as read, before decoding.
    private struct Stored: Sendable {
        var meta: (nextSeq: Int64, online: Bool, outbox: String, trip: String?)?
        var points: [(Int64, String)] = []
        /// The whole state as an earlier version saved it.
        var whole: String?
    }

    /// Saves `state`, writing only what differs from the last save, in one transaction.
    public func save(_ state: DriverSavedState) async throws {
        let plan = try Self.plan(state, after: written)
        written = nil
        _ = try await database.write { connection in
            if plan.rewriteAll {
                try connection.run("DELETE FROM driver_points")
                try connection.run("DELETE FROM driver_state")
            } else if let first = plan.firstKeptKey {
                try connection.run("DELETE FROM driver_points WHERE key < ?", first)
            } else if plan.dropAllPoints {
                try connection.run("DELETE FROM driver_points")
            }
            for (key, text) in plan.appended {
                try connection.run("INSERT INTO driver_points (key, point) VALUES (?, ?)", key, text)
            }
            if let meta = plan.meta {
                try connection.run(
                    """
                    INSERT INTO driver_meta (id, next_seq, online, outbox, trip) VALUES (1, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET next_seq = excluded.next_seq, online = excluded.online,
                        outbox = excluded.outbox, trip = excluded.trip
                    """, meta.nextSeq, meta.online ? 1 : 0, meta.outbox, meta.trip)
            }
        }
        written = plan.after
    }

    /// What one save writes.
    struct Plan {
        /// Start again: every point row and the old whole-state row deleted before the appends.
        var rewriteAll = false
        /// Point rows below this key are deleted (acknowledged); nil when none are.
        var firstKeptKey: Int64?
        /// Every point row is deleted (all acknowledged), without a rewrite of the rest.
        var dropAllPoints = false
        /// New point rows, key and text.
        var appended: [(Int64, String)] = []
        /// The meta row, when anything in it changed.
        var meta: (nextSeq: Int64, online: Bool, outbox: String, trip: String?)?
        /// What the store holds once this is written.
        var after: Written
    }

    /// The writes that take the store from `before` to `state`: the points as a run dropped from the front and
    /// a run added at the back when that is what happened (acks and new fixes), else all of them again (the
    /// batcher thinned its offline buffer, or a link loss re-queued points).
    static func plan(_ state: DriverSavedState, after before: Written?) throws -> Plan {
        let points = state.batcher.points
        var plan = Plan(after: Written(state: state, pointKeys: [], nextKey: 1))
        if let before, let dropped = droppedPrefix(from: before.state.batcher.points, to: points) {
            let kept = before.state.batcher.points.count - dropped
            let keptKeys = Array(before.pointKeys.suffix(kept))
            if dropped > 0 {
                if let first = keptKeys.first { plan.firstKeptKey = first } else { plan.dropAllPoints = true }
            }
            var nextKey = before.nextKey
            var keys = keptKeys
            for point in points[kept...] {
                plan.appended.append((nextKey, try text(point)))
                keys.append(nextKey)
                nextKey += 1
            }
            plan.after.pointKeys = keys
            plan.after.nextKey = nextKey
            let previous = before.state
            if previous.batcher.nextSeq != state.batcher.nextSeq || previous.online != state.online
                || previous.outbox != state.outbox || previous.trip != state.trip
            {
                plan.meta = try meta(state)
            }
        } else {
            plan.rewriteAll = true
            plan.appended = try points.enumerated().map { (Int64($0.offset + 1), try text($0.element)) }
            plan.after.pointKeys = plan.appended.map(\.0)
            plan.after.nextKey = Int64(points.count + 1)
            plan.meta = try meta(state)
        }
        return plan
    }

    /// How many points left the front of `old` when `new` is what stayed plus points added at the back; nil
    /// when `new` is not that.
    static func droppedPrefix(from old: [LocationPoint], to new: [LocationPoint]) -> Int? {
        for dropped in 0...old.count {
            let kept = old[dropped...]
            if kept.count <= new.count, new.prefix(kept.count).elementsEqual(kept) { return dropped }
        }
        return nil
    }

    private static func meta(_ state: DriverSavedState) throws -> (
        nextSeq: Int64, online: Bool, outbox: String, trip: String?
    ) {
        (
            state.batcher.nextSeq, state.online, try text(state.outbox), try state.trip.map { try text($0) }
        )
    }

    // Plain JSONEncoder dates are exact Doubles: a restored fix keeps its device time to the nanosecond.
    private static func text(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    private static let decoder = JSONDecoder()
}
