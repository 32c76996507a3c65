import Foundation

/// Counters read from the shared backends themselves, so a benchmark counts their work instead of inferring it:
/// Redis's `INFO commandstats` and PostgreSQL's `pg_stat_database`.
public struct BackendCounters: Sendable, Hashable {
    /// Calls per Redis command (`evalsha`, `hset`, `geoadd`, …), the commands scripts ran included.
    public var redisCalls: [String: Int] = [:]
    /// Transactions the database committed (`xact_commit`), every client's.
    public var postgresCommits = 0

    /// No counts.
    public init() {}

    /// Reads both backends now; a backend not given (nil) reads as zero.
    public static func read(redis: RedisClient?, postgres: PostgresPool?) async throws -> BackendCounters {
        var counters = BackendCounters()
        if let redis {
            let commandStats = try await redis.run { connection in
                try connection.command(["INFO", "commandstats"]).checked().text ?? ""
            }
            counters.redisCalls = Self.commandCalls(commandStats)
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

    /// Script invocations among `redisCalls` (`evalsha`, `eval`, `fcall` and their read-only forms): the calls a
    /// client made that ran a script. Redis counts the commands a script runs as calls of their own, in
    /// `commandstats` and in `total_commands_processed` alike, so this is how calls from clients are told apart.
    public var redisScriptCalls: Int {
        Self.scriptCommands.reduce(0) { $0 + (redisCalls[$1] ?? 0) }
    }

    /// Commands that run a script.
    static let scriptCommands = ["evalsha", "eval", "evalsha_ro", "eval_ro", "fcall", "fcall_ro"]

    /// What happened between `earlier` and this reading.
    public func since(_ earlier: BackendCounters) -> BackendCounters {
        var delta = BackendCounters()
        for (command, calls) in redisCalls {
            let added = calls - (earlier.redisCalls[command] ?? 0)
            if added > 0 { delta.redisCalls[command] = added }
        }
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

}
