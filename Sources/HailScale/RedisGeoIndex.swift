import Foundation
import HailCore
import HailServer

/// Drivers' positions in a Redis GEO set shared by every node, with a sorted set of last-seen times for
/// evicting drivers who went silent. Both keys carry the hash tag `{geo}`, so on Redis Cluster they are in
/// one slot and the scripts that touch both run there (docs/DEPLOY.md: sharding the index by city area).
public struct RedisGeoIndex: GeoIndex {
    private let client: RedisClient
    private let positionsKey: String
    private let seenKey: String

    // Atomic so a driver who reports between the range and the removal is not evicted after all.
    private static let evictScript = """
        local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[1])
        for i = 1, #ids, 1000 do
            local chunk = {unpack(ids, i, math.min(i + 999, #ids))}
            redis.call('ZREM', KEYS[1], unpack(chunk))
            redis.call('ZREM', KEYS[2], unpack(chunk))
        end
        return ids
        """

    /// Puts or moves drivers given as ARGV groups of (driver, longitude, latitude, seen at), in one step: one
    /// GEOADD and one ZADD per 500 drivers (Lua's `unpack` has a bounded stack).
    static let updateScript = """
        local count = #ARGV / 4
        for first = 0, count - 1, 500 do
            local positions, seen = {}, {}
            for i = first, math.min(first + 500, count) - 1 do
                local at = i * 4
                positions[#positions + 1] = ARGV[at + 2]
                positions[#positions + 1] = ARGV[at + 3]
                positions[#positions + 1] = ARGV[at + 1]
                seen[#seen + 1] = ARGV[at + 4]
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

    /// Puts or moves a driver and records when they were seen, in one transaction.
    public func update(driverID: String, coordinate: Coordinate, seenAt: Date) async throws {
        let commands = [
            ["MULTI"],
            ["GEOADD", positionsKey, "\(coordinate.lng)", "\(coordinate.lat)", driverID],
            ["ZADD", seenKey, "\(seenAt.timeIntervalSince1970)", driverID],
            ["EXEC"],
        ]
        _ = try await client.run { connection in try connection.pipeline(commands).map { try $0.checked() } }
    }

    /// Removes a driver.
    public func remove(driverID: String) async throws {
        let commands = [["MULTI"], ["ZREM", positionsKey, driverID], ["ZREM", seenKey, driverID], ["EXEC"]]
        _ = try await client.run { connection in try connection.pipeline(commands).map { try $0.checked() } }
    }

    /// Drivers within `radius` metres of `center`, nearest first, at most `limit`, with when each was last seen.
    public func nearest(to center: Coordinate, radius: Double, limit: Int) async throws -> [GeoHit] {
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
            let seen = ids.isEmpty ? nil : try connection.command(["ZMSCORE", seenKey] + ids).checked()
            return (reply, seen)
        }
        guard let items = reply.elements else { throw RedisError.unexpected("GEOSEARCH answered \(reply)") }
        let seenAt = seen?.elements ?? []
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
                seenAt: seconds.map(Date.init(timeIntervalSince1970:)))
        }
    }

    /// Removes every driver last seen before `cutoff` and returns their ids, sorted.
    public func evict(seenBefore cutoff: Date) async throws -> [String] {
        let command = ["EVAL", Self.evictScript, "2", positionsKey, seenKey, "\(cutoff.timeIntervalSince1970)"]
        let reply = try await client.run { connection in try connection.command(command).checked() }
        guard let ids = reply.elements?.compactMap(\.text) else {
            throw RedisError.unexpected("evict answered \(reply)")
        }
        return ids.sorted()
    }
}
