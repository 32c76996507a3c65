import Foundation

/// Counters read from the shared backends themselves, so a benchmark counts their work instead of inferring it:
/// Redis's `INFO commandstats` and `INFO stats`, and PostgreSQL's `pg_stat_database`.
public struct BackendCounters: Sendable, Hashable {
    /// Calls per Redis command (`evalsha`, `hset`, `geoadd`, …), the commands scripts ran included.
    public var redisCalls: [String: Int] = [:]
    /// Commands Redis took from its clients (`total_commands_processed`): a script call counts once.
    public var redisCommandsProcessed = 0
    /// Transactions the database committed (`xact_commit`), every client's.
    public var postgresCommits = 0

    /// No counts.
    public init() {}

    /// Reads both backends now; a backend not given (nil) reads as zero.
    public static func read(redis: RedisClient?, postgres: PostgresPool?) async throws -> BackendCounters {
        var counters = BackendCounters()
        if let redis {
            let (commandStats, stats) = try await redis.run { connection in
                (
                    try connection.command(["INFO", "commandstats"]).checked().text ?? "",
                    try connection.command(["INFO", "stats"]).checked().text ?? ""
                )
            }
            counters.redisCalls = Self.commandCalls(commandStats)
            counters.redisCommandsProcessed = Self.field("total_commands_processed", in: stats) ?? 0
        }
        if let postgres {
            counters.postgresCommits = try await postgres.run { connection in
                // Statistics are read from a snapshot taken once per transaction: a fresh one each time.
                try connection.execute("SELECT pg_stat_clear_snapshot()")
                return try connection.query(
                    "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")[0].int(0)
            }
        }
        return counters
    }

    /// What happened between `earlier` and this reading.
    public func since(_ earlier: BackendCounters) -> BackendCounters {
        var delta = BackendCounters()
        for (command, calls) in redisCalls {
            let added = calls - (earlier.redisCalls[command] ?? 0)
            if added > 0 { delta.redisCalls[command] = added }
        }
        delta.redisCommandsProcessed = redisCommandsProcessed - earlier.redisCommandsProcessed
        delta.postgresCommits = postgresCommits - earlier.postgresCommits
        return delta
    }

    /// `cmdstat_hset:calls=12,usec=…` lines as `["hset": 12]`.
    static func commandCalls(_ info: String) -> [String: Int] {
        var calls: [String: Int] = [:]
        for line in info.split(whereSeparator: \.isNewline) where line.hasPrefix("cmdstat_") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[line.index(line.startIndex, offsetBy: 8)..<colon])
            for field in line[line.index(after: colon)...].split(separator: ",") where field.hasPrefix("calls=") {
                calls[name] = Int(field.dropFirst(6))
            }
        }
        return calls
    }

    /// The integer after `name:` in an INFO section.
    static func field(_ name: String, in info: String) -> Int? {
        for line in info.split(whereSeparator: \.isNewline) where line.hasPrefix(name + ":") {
            return Int(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
