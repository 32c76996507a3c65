import Foundation
import HailCore
import HailServer

/// Drivers' positions in a Redis GEO set shared by every node, with a sorted set of last-seen times for
/// evicting drivers who went silent. Both keys carry the hash tag `{geo}`, so on Redis Cluster they are in
/// one slot and the scripts that touch both run there (docs/DEPLOY.md: sharding the index by city area).
///
/// Last-seen times are Redis's own (`TIME`, in seconds), written and judged by scripts: a node whose clock is
/// minutes off neither evicts drivers another node just saw nor keeps silent ones; the `seenAt` a node passes
/// is not stored.
public struct RedisGeoIndex: GeoIndex {
    /// Shared by every node.
    public var scope: StateScope { .deployment }

    private let client: RedisClient
    private let positionsKey: String
    private let seenKey: String

    /// Redis's time in seconds, as the first lines of every script that needs it.
    static let redisNow = """
        local clock = redis.call('TIME')
        local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
        """

    // Atomic so a driver who reports between the range and the removal is not evicted after all.
    private static let evictScript =
        redisNow + "\n" + """
            local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. string.format('%.6f', now - tonumber(ARGV[1])))
            for i = 1, #ids, 1000 do
                local chunk = {unpack(ids, i, math.min(i + 999, #ids))}
                redis.call('ZREM', KEYS[1], unpack(chunk))
                redis.call('ZREM', KEYS[2], unpack(chunk))
            end
            return ids
            """

    /// The arguments per driver of `updateScript`.
    static let updateArity = 3

    /// Puts or moves drivers given as ARGV groups of (driver, longitude, latitude), seen now by Redis's clock, in
    /// one step: one GEOADD and one ZADD per 500 drivers (Lua's `unpack` has a bounded stack).
    static let updateScript =
        redisNow + "\n" + """
            local seenAt = string.format('%.6f', now)
            local count = #ARGV / 3
            for first = 0, count - 1, 500 do
                local positions, seen = {}, {}
                for i = first, math.min(first + 500, count) - 1 do
                    local at = i * 3
                    positions[#positions + 1] = ARGV[at + 2]
                    positions[#positions + 1] = ARGV[at + 3]
                    positions[#positions + 1] = ARGV[at + 1]
                    seen[#seen + 1] = seenAt
                    seen[#seen + 1] = ARGV[at + 1]
                end
                redis.call('GEOADD', KEYS[1], unpack(positions))
                redis.call('ZADD', KEYS[2], unpack(seen))
            end
            return count
            """

    /// An index under the keys `<prefix>:{geo}:positions` and `<prefix>:{geo}:seen`.
    public init(client: RedisClient, prefix: String = "hail:drivers") {
        self.client = client
        (positionsKey, seenKey) = Self.keys(prefix: prefix)
    }

    /// The positions and last-seen keys under `prefix`.
    static func keys(prefix: String) -> (positions: String, seen: String) {
        (prefix + ":{geo}:positions", prefix + ":{geo}:seen")
    }

    /// Puts or moves a driver and records them seen now by Redis's clock, in one script.
    public func update(driverID: String, coordinate: Coordinate, seenAt: Date) async throws {
        let command = [
            "EVAL", Self.updateScript, "2", positionsKey, seenKey, driverID, "\(coordinate.lng)", "\(coordinate.lat)",
        ]
        _ = try await client.run { connection in try connection.command(command).checked() }
    }

    /// Removes a driver.
    public func remove(driverID: String) async throws {
        let commands = [["MULTI"], ["ZREM", positionsKey, driverID], ["ZREM", seenKey, driverID], ["EXEC"]]
        _ = try await client.run { connection in try connection.pipeline(commands).map { try $0.checked() } }
    }

    /// Drivers within `radius` metres of `center`, nearest first, at most `limit`, with how long each has been
    /// silent by Redis's clock (`now`, the caller's, is not asked).
    public func nearest(to center: Coordinate, radius: Double, limit: Int, now: Date) async throws -> [GeoHit] {
        guard limit > 0, radius >= 0 else { return [] }
        let command = [
            "GEOSEARCH", positionsKey, "FROMLONLAT", "\(center.lng)", "\(center.lat)", "BYRADIUS", "\(radius)", "m",
            "ASC", "COUNT", String(limit), "WITHDIST", "WITHCOORD",
        ]
        let seenKey = seenKey
        // The search, then when each driver found was last seen (a search is rare: dispatch, nearby cars).
        let (reply, seen) = try await client.run { connection in
            let reply = try connection.command(command).checked()
            let ids = reply.elements?.compactMap { $0.elements?.first?.text } ?? []
            let seen = ids.isEmpty ? nil : try connection.pipeline([["ZMSCORE", seenKey] + ids, ["TIME"]])
            return (reply, try seen?.map { try $0.checked() })
        }
        guard let items = reply.elements else { throw RedisError.unexpected("GEOSEARCH answered \(reply)") }
        let seenAt = seen?.first?.elements ?? []
        let redisNow = seen?.last?.elements.flatMap(Self.seconds)
        // Each item is [member, distance, [longitude, latitude]].
        return try items.enumerated().map { index, item in
            guard let fields = item.elements, fields.count == 3, let id = fields[0].text,
                let distance = fields[1].text.flatMap(Double.init), let position = fields[2].elements,
                position.count == 2, let lng = position[0].text.flatMap(Double.init),
                let lat = position[1].text.flatMap(Double.init)
            else { throw RedisError.unexpected("GEOSEARCH item \(item)") }
            let seconds = index < seenAt.count ? seenAt[index].text.flatMap(Double.init) : nil
            return GeoHit(
                driverID: id, coordinate: Coordinate(lat: lat, lng: lng), distance: distance,
                silence: seconds.flatMap { seen in redisNow.map { max(0, $0 - seen) } })
        }
    }

    /// Removes every driver silent for more than `silence` seconds by Redis's clock and returns their ids, sorted.
    public func evict(silentFor silence: TimeInterval, now: Date) async throws -> [String] {
        let command = ["EVAL", Self.evictScript, "2", positionsKey, seenKey, "\(silence)"]
        let reply = try await client.run { connection in try connection.command(command).checked() }
        guard let ids = reply.elements?.compactMap(\.text) else {
            throw RedisError.unexpected("evict answered \(reply)")
        }
        return ids.sorted()
    }

    /// Seconds since 1970 from a `TIME` reply (seconds, microseconds).
    private static func seconds(_ time: [RedisReply]) -> Double? {
        guard time.count == 2, let seconds = time[0].text.flatMap(Double.init),
            let micros = time[1].text.flatMap(Double.init)
        else { return nil }
        return seconds + micros / 1_000_000
    }
}
