import Foundation
import HailCore
import HailServer
import HailTesting
import Testing

@testable import HailScale

/// The ingest pipeline's scripts live in Redis's script cache, which a restart or `SCRIPT FLUSH` empties. The
/// test runs on a Redis of its own: on the shared one, any other test's pipeline starting up loads the same
/// scripts again (the cache is the server's, not a connection's), so a flush could be undone before the write.
@Suite("Ingest scripts flushed from Redis", .serialized)
struct RedisScriptReloadTests {
    @Test func aWriteAfterTheScriptsWereFlushedLoadsThemAgainAndApplies() async throws {
        let redis = try PrivateRedis()
        try await redis.start()
        defer { redis.kill() }
        let endpoint = try RedisEndpoint(url: redis.url)
        let client = RedisClient(endpoint: endpoint, size: 1)
        defer { client.close() }
        let store = RedisDriverIngestStore(client: client)
        let pipeline = RedisIngestPipeline(endpoint: endpoint)
        defer { pipeline.close() }

        _ = try await store.advance(driverID: "driver-1", to: 1)
        let first = try #require(try await pipeline.load(driverID: "driver-1"))
        #expect(try await Self.write(pipeline, seq: 2, on: first.version, leaving: "v2") == .applied)
        #expect(pipeline.statistics.scriptLoads == 1)

        _ = try await client.run { try $0.command(["SCRIPT", "FLUSH"]).checked() }
        // Redis answers the call NOSCRIPT; the pipeline loads the scripts again and sends the call once more.
        #expect(try await Self.write(pipeline, seq: 3, on: "v2", leaving: "v3") == .applied)
        #expect(pipeline.statistics.scriptLoads == 2)
        let stored = try #require(try await pipeline.load(driverID: "driver-1"))
        #expect(stored.version == "v3")
        #expect(stored.state.lastSeq == 3)
    }

    /// Writes batch `seq` of driver-1, planned on `version`, and waits for Redis's answer.
    static func write(_ pipeline: RedisIngestPipeline, seq: Int64, on version: String, leaving newVersion: String)
        async throws -> PlannedIngestOutcome
    {
        let planned = PlannedIngestWrite(
            driverID: "driver-1", seq: seq, expectedVersion: version, newVersion: newVersion,
            filter: LocationFilter(), position: nil, publish: nil, geo: nil)
        return try await withCheckedThrowingContinuation { continuation in
            pipeline.write(planned) { continuation.resume(with: $0) }
        }
    }
}
