import Foundation
import HailServer

/// Search leases in Redis, shared by every node: a sorted set of trip ids scored by when their lease lapses
/// (`<prefix>`) and a hash of who holds each (`<prefix>:owners`). Taking and releasing are Lua scripts, so
/// two nodes adopting the same lapsed search cannot both get it.
public struct RedisSearchLeases: SearchLeases {
    private let client: RedisClient
    private let expiriesKey: String
    private let ownersKey: String

    private static let holdScript = """
        local owner = redis.call('HGET', KEYS[2], ARGV[1])
        local expiry = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '0')
        if owner and owner ~= ARGV[2] and expiry > tonumber(ARGV[4]) then return 0 end
        redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
        redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
        return 1
        """

    private static let releaseScript = """
        if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
        redis.call('ZREM', KEYS[1], ARGV[1])
        redis.call('HDEL', KEYS[2], ARGV[1])
        return 1
        """

    /// Leases under the keys `<prefix>` and `<prefix>:owners`.
    public init(client: RedisClient, prefix: String = "hail:searches") {
        self.client = client
        expiriesKey = prefix
        ownersKey = prefix + ":owners"
    }

    /// Takes or renews the lease unless another owner's is live.
    public func hold(tripID: String, owner: String, until: Date, now: Date) async throws -> Bool {
        let command = [
            "EVAL", Self.holdScript, "2", expiriesKey, ownersKey, tripID, owner, String(Self.millis(until)),
            String(Self.millis(now)),
        ]
        let reply = try await client.run { connection in try connection.command(command).checked() }
        guard case .integer(let held) = reply else { throw RedisError.unexpected("lease hold answered \(reply)") }
        return held == 1
    }

    /// Searches whose lease lapsed, earliest first.
    public func lapsed(now: Date, limit: Int) async throws -> [String] {
        let command = [
            "ZRANGEBYSCORE", expiriesKey, "-inf", String(Self.millis(now)), "LIMIT", "0", String(max(0, limit)),
        ]
        let reply = try await client.run { connection in try connection.command(command).checked() }
        guard let ids = reply.elements?.compactMap(\.text) else {
            throw RedisError.unexpected("ZRANGEBYSCORE answered \(reply)")
        }
        return ids
    }

    /// Ends the lease if `owner` holds it.
    public func release(tripID: String, owner: String) async throws {
        let command = ["EVAL", Self.releaseScript, "2", expiriesKey, ownersKey, tripID, owner]
        _ = try await client.run { connection in try connection.command(command).checked() }
    }

    private static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}
