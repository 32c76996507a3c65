import Foundation
import Testing

@testable import HailScale

@Suite("Counters read from Redis and PostgreSQL")
struct BackendCountersTests {
    @Test func commandStatsLinesGiveCallsPerCommand() {
        let info = """
            # Commandstats\r
            cmdstat_evalsha:calls=1200,usec=9000,usec_per_call=7.50,rejected_calls=0,failed_calls=0\r
            cmdstat_hset:calls=1200,usec=1500,usec_per_call=1.25,rejected_calls=0,failed_calls=0\r
            cmdstat_geoadd:calls=3,usec=40,usec_per_call=13.33,rejected_calls=0,failed_calls=0\r
            """
        #expect(BackendCounters.commandCalls(info) == ["evalsha": 1200, "hset": 1200, "geoadd": 3])
    }

    @Test func scriptCallsCountEveryWayOfRunningAScriptAndNothingTheScriptsRan() {
        var counters = BackendCounters()
        counters.redisCalls = ["evalsha": 1200, "eval": 2, "fcall": 1, "hset": 1200, "geoadd": 3]
        #expect(counters.redisScriptCalls == 1203)
    }

    @Test func theChangeOverAWindowKeepsOnlyWhatGrew() {
        var earlier = BackendCounters()
        earlier.redisCalls = ["hset": 10, "ping": 4]
        earlier.postgresCommits = 7
        var later = earlier
        later.redisCalls = ["hset": 25, "ping": 4, "evalsha": 15]
        later.postgresCommits = 19
        var expected = BackendCounters()
        expected.redisCalls = ["hset": 15, "evalsha": 15]
        expected.postgresCommits = 12
        #expect(later.since(earlier) == expected)
    }

    @Test(.enabled(if: ScaleServices.hasPostgres && ScaleServices.hasRedis, "start them with scripts/services.sh"))
    func aLiveReadingCountsTheCommandsAndTransactionsBetweenTwoReadings() async throws {
        let redis = RedisClient(endpoint: try RedisEndpoint(url: try #require(ScaleServices.redisURL)), size: 1)
        defer { redis.close() }
        let postgres = try await PostgresPool.connect(
            url: try #require(ScaleServices.postgresURL), size: 1, migrations: [])
        defer { postgres.close() }
        let before = try await BackendCounters.read(redis: redis, postgres: postgres)
        // ECHO: a command nothing else in the suite sends, so its count is exactly ours.
        for _ in 0..<3 { _ = try await redis.run { try $0.command(["ECHO", "counted"]).checked() } }
        let after = try await BackendCounters.read(redis: redis, postgres: postgres)
        let delta = after.since(before)
        #expect(delta.redisCalls["echo"] == 3)
        // Backends publish their commit counts about once a second, so only the reading itself is checked here.
        #expect(after.postgresCommits > 0)
    }
}
