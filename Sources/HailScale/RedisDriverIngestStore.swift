import Foundation
import HailCore
import HailServer

/// Drivers' ingest state in Redis, one hash per driver (`<prefix>:{driver:<driverID>}`, the braces a hash tag
/// so that on Redis Cluster each driver's state, and every script on it, is in one slot), shared by every
/// node: a driver who reconnects to another node keeps their seq (no replay, no going backwards) and their
/// filter's reference fix, and the node holding their socket learns the trip another node assigned.
///
/// Fields: `seq`, `filter` and `position` (JSON), `online`, `degraded`, `trip` (JSON, only while active),
/// `tripID` and `tripVersion` (the newest change recorded, so a late older one is ignored), and `ver`, which
/// every write replaces with a value of its own: a node that planned a batch on a copy of the hash
/// (`RedisIngestPipeline`) writes it only while `ver` is still the copy's. Each write renews the hash's
/// lifetime (`lifetime`, a day by default), so a driver gone for that long is forgotten.
public struct RedisDriverIngestStore: DriverIngestStore {
    /// Shared by every node.
    public var scope: StateScope { .deployment }

    private let client: RedisClient
    private let prefix: String
    private let lifetimeMillis: String

    // Returns the hash as it was before (a placeholder field when there was none, so it is not nil).
    private static let advanceScript = """
        local s = redis.call('HGET', KEYS[1], 'seq')
        if s and tonumber(s) >= tonumber(ARGV[1]) then return false end
        local before = redis.call('HGETALL', KEYS[1])
        if #before == 0 then before = {'new', '1'} end
        redis.call('HSET', KEYS[1], 'seq', ARGV[1], 'ver', ARGV[3])
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return before
        """

    private static let rewindScript = """
        if redis.call('HGET', KEYS[1], 'seq') ~= ARGV[1] then return 0 end
        redis.call('HSET', KEYS[1], 'ver', ARGV[3], 'filter', ARGV[4])
        if ARGV[2] == '' then return redis.call('HDEL', KEYS[1], 'seq') end
        return redis.call('HSET', KEYS[1], 'seq', ARGV[2])
        """

    private static let recordTripScript = """
        local id = redis.call('HGET', KEYS[1], 'tripID')
        local v = tonumber(redis.call('HGET', KEYS[1], 'tripVersion') or '0')
        if id == ARGV[1] and v >= tonumber(ARGV[2]) then return 0 end
        redis.call('HSET', KEYS[1], 'tripID', ARGV[1], 'tripVersion', ARGV[2], 'ver', ARGV[5])
        if ARGV[3] == '' then redis.call('HDEL', KEYS[1], 'trip') else redis.call('HSET', KEYS[1], 'trip', ARGV[3]) end
        redis.call('PEXPIRE', KEYS[1], ARGV[4])
        return 1
        """

    private static let releaseTripScript = """
        if redis.call('HGET', KEYS[1], 'tripID') ~= ARGV[1] then return 0 end
        redis.call('HSET', KEYS[1], 'ver', ARGV[2])
        return redis.call('HDEL', KEYS[1], 'trip')
        """

    // A trip is written unless the same trip is stored at its version or newer; none only when nothing is recorded.
    private static let loadedTripScript = """
        local id = redis.call('HGET', KEYS[1], 'tripID')
        if ARGV[1] == '' then
          if id then return 0 end
        elseif id == ARGV[1] and tonumber(redis.call('HGET', KEYS[1], 'tripVersion') or '0') >= tonumber(ARGV[2]) then
          return 0
        end
        redis.call('HSET', KEYS[1], 'tripID', ARGV[1], 'tripVersion', ARGV[2], 'ver', ARGV[5])
        if ARGV[3] == '' then redis.call('HDEL', KEYS[1], 'trip') else redis.call('HSET', KEYS[1], 'trip', ARGV[3]) end
        redis.call('PEXPIRE', KEYS[1], ARGV[4])
        return 1
        """

    // Written only over the mark the repair was decided on (trip id, version, and whether a trip is stored).
    private static let repairTripScript = """
        local id = redis.call('HGET', KEYS[1], 'tripID')
        local v = redis.call('HGET', KEYS[1], 'tripVersion')
        local active = tostring(redis.call('HEXISTS', KEYS[1], 'trip'))
        if id ~= ARGV[1] or v ~= ARGV[2] or active ~= ARGV[3] then return 0 end
        redis.call('HSET', KEYS[1], 'tripID', ARGV[4], 'tripVersion', ARGV[5], 'ver', ARGV[8])
        if ARGV[6] == '' then redis.call('HDEL', KEYS[1], 'trip') else redis.call('HSET', KEYS[1], 'trip', ARGV[6]) end
        redis.call('PEXPIRE', KEYS[1], ARGV[7])
        return 1
        """

    /// A store under the keys `<prefix>:{driver:<driverID>}`, forgetting a driver `lifetime` after their last write.
    public init(client: RedisClient, prefix: String = "hail:ingest", lifetime: TimeInterval = 86_400) {
        self.client = client
        self.prefix = prefix
        lifetimeMillis = String(Int(lifetime * 1000))
    }

    /// The driver's state, nil when the hash does not exist.
    public func state(driverID: String) async throws -> DriverIngestState? {
        try await states(driverIDs: [driverID])[driverID]
    }

    /// Several drivers' states in one pipeline.
    public func states(driverIDs: [String]) async throws -> [String: DriverIngestState] {
        guard !driverIDs.isEmpty else { return [:] }
        let commands = driverIDs.map { ["HGETALL", key($0)] }
        let replies = try await client.run { connection in try connection.pipeline(commands).map { try $0.checked() } }
        var found: [String: DriverIngestState] = [:]
        for (id, reply) in zip(driverIDs, replies) {
            if let state = try Self.decode(reply) { found[id] = state }
        }
        return found
    }

    /// Puts the seq back unless a later batch was taken.
    public func rewind(driverID: String, from seq: Int64, to previous: Int64?, filter: LocationFilter) async throws {
        let command = [
            "EVAL", Self.rewindScript, "1", key(driverID), String(seq), previous.map(String.init) ?? "",
            Self.newVersion(), IngestStateText.filter(filter),
        ]
        _ = try await client.run { connection in try connection.command(command).checked() }
    }

    /// Takes `seq` atomically when it is newer than the stored one; returns the state before.
    public func advance(driverID: String, to seq: Int64) async throws -> DriverIngestState? {
        let command = ["EVAL", Self.advanceScript, "1", key(driverID), String(seq), lifetimeMillis, Self.newVersion()]
        let reply = try await client.run { connection in try connection.command(command).checked() }
        if reply == .null { return nil }
        guard let state = try Self.decode(reply) else { throw RedisError.unexpected("advance answered \(reply)") }
        return state
    }

    /// Stores the filter and, when one was published, the position.
    public func saveFix(driverID: String, filter: LocationFilter, position: DriverLocation?) async throws {
        var command = ["HSET", key(driverID), "filter", IngestStateText.filter(filter), "ver", Self.newVersion()]
        if let position { command += ["position", IngestStateText.position(position)] }
        try await write([command])
    }

    /// Stores online status.
    public func setStatus(driverID: String, online: Bool, degraded: Bool) async throws {
        try await write([
            [
                "HSET", key(driverID), "online", online ? "1" : "0", "degraded", degraded ? "1" : "0", "ver",
                Self.newVersion(),
            ]
        ])
    }

    /// Records the trip unless a newer version of it is stored.
    public func recordTrip(_ record: TripRecord) async throws {
        guard let driverID = record.driverID else { return }
        let json = record.trip.state.isActive ? try Self.json(record) : ""
        let command = [
            "EVAL", Self.recordTripScript, "1", key(driverID), record.trip.id, String(record.trip.version), json,
            lifetimeMillis, Self.newVersion(),
        ]
        _ = try await client.run { connection in try connection.command(command).checked() }
    }

    /// Clears the trip if it is the one stored.
    public func releaseTrip(_ tripID: String, driverID: String) async throws {
        let command = ["EVAL", Self.releaseTripScript, "1", key(driverID), tripID, Self.newVersion()]
        _ = try await client.run { connection in try connection.command(command).checked() }
    }

    /// The trip marks of the drivers whose trip is known, two commands a driver in one pipeline.
    public func tripMarks(driverIDs: [String]) async throws -> [String: DriverTripMark] {
        guard !driverIDs.isEmpty else { return [:] }
        let commands = driverIDs.flatMap { id in
            [["HMGET", key(id), "tripID", "tripVersion"], ["HEXISTS", key(id), "trip"]]
        }
        let replies = try await client.run { connection in try connection.pipeline(commands).map { try $0.checked() } }
        var marks: [String: DriverTripMark] = [:]
        for (index, id) in driverIDs.enumerated() {
            let fields = replies[2 * index].elements ?? []
            guard fields.count == 2, let tripID = fields[0].text else { continue }
            let version = fields[1].text.flatMap { Int($0) } ?? 0
            marks[id] = DriverTripMark(tripID: tripID, version: version, active: replies[2 * index + 1] == .integer(1))
        }
        return marks
    }

    /// Writes the repair if the driver's mark is still the one it was decided on.
    public func repairTrip(_ write: DriverTripRepair.Write) async throws -> Bool {
        let expected = write.expected
        let command = [
            "EVAL", Self.repairTripScript, "1", key(write.driverID), expected.tripID, String(expected.version),
            expected.active ? "1" : "0", write.mark.tripID, String(write.mark.version),
            try write.record.map(Self.json) ?? "", lifetimeMillis, Self.newVersion(),
        ]
        let reply = try await client.run { connection in try connection.command(command).checked() }
        return reply == .integer(1)
    }

    /// Stores a looked-up trip unless the same trip is stored at its version or newer; none only when nothing is.
    public func loadedTrip(_ record: TripRecord?, driverID: String) async throws {
        let command = [
            "EVAL", Self.loadedTripScript, "1", key(driverID), record?.trip.id ?? "",
            String(record?.trip.version ?? 0), try record.map(Self.json) ?? "", lifetimeMillis, Self.newVersion(),
        ]
        _ = try await client.run { connection in try connection.command(command).checked() }
    }

    /// `loadedTrip` for many drivers, their script calls pipelined in one round trip.
    public func loadedTrips(driverIDs: [String], active: [String: TripRecord]) async throws {
        guard !driverIDs.isEmpty else { return }
        var commands: [[String]] = []
        commands.reserveCapacity(driverIDs.count)
        for driverID in driverIDs {
            let record = active[driverID]
            commands.append([
                "EVAL", Self.loadedTripScript, "1", key(driverID), record?.trip.id ?? "",
                String(record?.trip.version ?? 0), try record.map(Self.json) ?? "", lifetimeMillis, Self.newVersion(),
            ])
        }
        let all = commands
        _ = try await client.run { connection in try connection.pipeline(all).map { try $0.checked() } }
    }

    /// The driver's hash.
    static func key(prefix: String, driverID: String) -> String { prefix + ":{driver:" + driverID + "}" }

    private func key(_ driverID: String) -> String { Self.key(prefix: prefix, driverID: driverID) }

    /// A `ver` no other write uses.
    private static func newVersion() -> String { UUID().uuidString }

    private func write(_ commands: [[String]]) async throws {
        let all = commands + [["PEXPIRE", commands[0][1], lifetimeMillis]]
        _ = try await client.run { connection in try connection.pipeline(all).map { try $0.checked() } }
    }

    static func json<Value: Encodable>(_ value: Value) throws -> String {
        // Foundation's default dates (seconds as a Double) round-trip exactly; the filter compares them.
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    private static func decode(_ reply: RedisReply) throws -> DriverIngestState? {
        try decodeVersioned(reply)?.state
    }

    /// The state and `ver` in an `HGETALL` reply; nil for a missing hash.
    static func decodeVersioned(_ reply: RedisReply) throws -> VersionedIngestState? {
        guard let items = reply.elements else { return nil }
        guard !items.isEmpty else { return nil }
        var fields: [String: String] = [:]
        var index = 0
        while index + 1 < items.count {
            if let name = items[index].text, let value = items[index + 1].text { fields[name] = value }
            index += 2
        }
        let decoder = JSONDecoder()
        var state = DriverIngestState()
        state.lastSeq = fields["seq"].flatMap { Int64($0) }
        if let filter = fields["filter"] { state.filter = try IngestStateText.filter(from: filter) }
        state.online = fields["online"] == "1"
        state.degraded = fields["degraded"] == "1"
        state.statusKnown = fields["online"] != nil
        if let position = fields["position"] { state.position = try IngestStateText.position(from: position) }
        if let trip = fields["trip"] { state.trip = try decoder.decode(TripRecord.self, from: Data(trip.utf8)) }
        state.tripKnown = fields["tripID"] != nil
        return VersionedIngestState(state: state, version: fields["ver"] ?? "")
    }
}
