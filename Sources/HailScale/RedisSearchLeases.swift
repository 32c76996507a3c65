import Foundation
import HailServer

/// Search leases in Redis, shared by every node: a sorted set of trip ids scored by when their lease lapses
/// (`<prefix>`), a hash of who holds each, with its fencing token and the search's deadline
/// (`<prefix>:owners`, `owner|token|deadline ms`), and the counter tokens are drawn from (`<prefix>:fence`).
///
/// The scripts carry out `SearchLeaseTable`'s rules atomically on Redis's clock (`TIME`): no node's time is
/// written or compared, so a node whose clock is minutes off neither steals a live lease nor loses its own, and
/// an adopted search gives up when its first node would have.
public struct RedisSearchLeases: SearchLeases {
    /// Shared by every node.
    public var scope: StateScope { .deployment }

    private let client: RedisClient
    private let expiriesKey: String
    /// The hash of holders, tokens and deadlines (`RedisOfferStore` checks fences against it).
    public let ownersKey: String
    private let fenceKey: String

    /// Redis's time in milliseconds, as the first lines of every script that needs it.
    static let redisNow = """
        local clock = redis.call('TIME')
        local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
        """

    private static let holdScript =
        redisNow + "\n" + """
            local record = redis.call('HGET', KEYS[2], ARGV[1])
            local holder, token, deadline
            if record then
                holder, token, deadline = string.match(record, '^(.*)|(%d+)|(%-?%d+)$')
                if not holder then holder = record end
            end
            local lapses = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '0')
            if holder and holder ~= ARGV[2] and lapses > now then return {0, 0, 0} end
            if not (holder == ARGV[2] and token == ARGV[3]) then token = tostring(redis.call('INCR', KEYS[3])) end
            if ARGV[6] == '1' or not deadline then deadline = tostring(now + tonumber(ARGV[5])) end
            redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[1])
            redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. '|' .. token .. '|' .. deadline)
            return {1, tonumber(token), tonumber(deadline) - now}
            """

    private static let lapsedScript =
        redisNow + "\n" + """
            return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
            """

    private static let unheldScript =
        redisNow + "\n" + """
            local unheld = {}
            for _, trip in ipairs(ARGV) do
                local lapses = redis.call('ZSCORE', KEYS[1], trip)
                if not lapses or tonumber(lapses) <= now then unheld[#unheld + 1] = trip end
            end
            return unheld
            """

    private static let releaseScript = """
        local record = redis.call('HGET', KEYS[2], ARGV[1])
        if not record then return 0 end
        local holder = string.match(record, '^(.*)|%d+|%-?%d+$') or record
        if holder ~= ARGV[2] then return 0 end
        redis.call('ZREM', KEYS[1], ARGV[1])
        redis.call('HDEL', KEYS[2], ARGV[1])
        return 1
        """

    /// Leases under the keys `<prefix>`, `<prefix>:owners` and `<prefix>:fence`.
    public init(client: RedisClient, prefix: String = "hail:searches") {
        self.client = client
        expiriesKey = prefix
        ownersKey = Self.ownersKey(prefix: prefix)
        fenceKey = prefix + ":fence"
    }

    /// The hash of holders under `prefix`.
    public static func ownersKey(prefix: String) -> String { prefix + ":owners" }

    /// Takes or renews the lease unless another owner's is live, on Redis's clock.
    public func hold(tripID: String, owner: String, duration: TimeInterval, request: SearchLeaseRequest)
        async throws -> SearchLease?
    {
        let command = [
            "EVAL", Self.holdScript, "3", expiriesKey, ownersKey, fenceKey, tripID, owner,
            request.token.map(String.init) ?? "", String(Self.millis(duration)),
            String(Self.millis(request.searchTime)),
            request.restart ? "1" : "0",
        ]
        let reply = try await client.run { connection in try connection.command(command).checked() }
        guard let fields = reply.elements, fields.count == 3, case .integer(let held) = fields[0],
            case .integer(let token) = fields[1], case .integer(let remaining) = fields[2]
        else { throw RedisError.unexpected("lease hold answered \(reply)") }
        return held == 1 ? SearchLease(token: Int64(token), remaining: Double(remaining) / 1000) : nil
    }

    /// Searches whose lease lapsed by Redis's clock, earliest first.
    public func lapsed(limit: Int) async throws -> [String] {
        let command = ["EVAL", Self.lapsedScript, "1", expiriesKey, String(max(0, limit))]
        let reply = try await client.run { connection in try connection.command(command).checked() }
        guard let ids = reply.elements?.compactMap(\.text) else {
            throw RedisError.unexpected("lapsed leases answered \(reply)")
        }
        return ids
    }

    /// Those of `tripIDs` with no live lease by Redis's clock.
    public func unheld(_ tripIDs: [String]) async throws -> [String] {
        guard !tripIDs.isEmpty else { return [] }
        let command = ["EVAL", Self.unheldScript, "1", expiriesKey] + tripIDs
        let reply = try await client.run { connection in try connection.command(command).checked() }
        guard let ids = reply.elements?.compactMap(\.text) else {
            throw RedisError.unexpected("unheld leases answered \(reply)")
        }
        return ids
    }

    /// Ends the lease if `owner` holds it.
    public func release(tripID: String, owner: String) async throws {
        let command = ["EVAL", Self.releaseScript, "2", expiriesKey, ownersKey, tripID, owner]
        _ = try await client.run { connection in try connection.command(command).checked() }
    }

    private static func millis(_ seconds: TimeInterval) -> Int64 { Int64((seconds * 1000).rounded()) }
}
