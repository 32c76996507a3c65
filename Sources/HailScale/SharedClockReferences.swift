import Foundation
import HailServer

/// Redis's clock (`TIME`): the one the leases, offers and last-seen times of the scaled shape go by.
public struct RedisClockReference: ClockReference {
    private let client: RedisClient

    /// The clock of the Redis `client` talks to.
    public init(client: RedisClient) { self.client = client }

    /// `redis`.
    public var name: String { "redis" }

    /// Redis's `TIME`.
    public func referenceTime() async throws -> Date {
        let reply = try await client.run { connection in try connection.command(["TIME"]).checked() }
        guard let parts = reply.elements, parts.count == 2, let seconds = parts[0].text.flatMap(Double.init),
            let micros = parts[1].text.flatMap(Double.init)
        else { throw RedisError.unexpected("TIME answered \(reply)") }
        return Date(timeIntervalSince1970: seconds + micros / 1_000_000)
    }
}

/// PostgreSQL's clock (`clock_timestamp()`, the time as the statement runs, not as its transaction began), for a
/// deployment without Redis.
public struct PostgresClockReference: ClockReference {
    private let pool: PostgresPool

    /// The clock of the server behind `pool`.
    public init(pool: PostgresPool) { self.pool = pool }

    /// `postgres`.
    public var name: String { "postgres" }

    /// `extract(epoch from clock_timestamp())`.
    public func referenceTime() async throws -> Date {
        let seconds = try await pool.run { connection in
            try connection.query("SELECT extract(epoch FROM clock_timestamp())::float8").first?.double(0)
        }
        guard let seconds else { throw PostgresError.decoding("clock_timestamp() answered no row") }
        return Date(timeIntervalSince1970: seconds)
    }
}
