import Foundation
import HailScale
import HailServer
import Testing

@Suite("Choosing the backends")
struct ScaledBackendsTests {
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hail-\(UUID().uuidString).db").path
    }

    @Test func withoutURLsTheEmbeddedBackendsAreUsed() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let backends = try await ScaledBackends.open(postgresURL: nil, redisURL: nil, databasePath: path)
        defer { backends.close() }
        #expect(backends.trips is SQLiteTripStore)
        #expect(backends.bus is InProcessTripBus)
        #expect(backends.geo is MemoryGeoIndex)
        #expect(backends.offers is MemoryOfferStore)
        #expect(backends.ingestState is MemoryDriverIngestStore)
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func aURLThatIsNotRedisIsRefusedBeforeAnythingIsCreated() async throws {
        let path = Self.temporaryPath()
        await #expect(throws: RedisError.self) {
            _ = try await ScaledBackends.open(postgresURL: nil, redisURL: "http://127.0.0.1:1", databasePath: path)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test(
        .enabled(
            if: ScaleServices.hasPostgres && ScaleServices.hasRedis,
            "start PostgreSQL and Redis with scripts/services.sh"))
    func withBothURLsTheScaledBackendsAreUsed() async throws {
        let path = Self.temporaryPath()
        let backends = try await ScaledBackends.open(
            postgresURL: ScaleServices.postgresURL, redisURL: ScaleServices.redisURL, databasePath: path)
        defer { backends.close() }
        #expect(backends.trips is PostgresTripStore)
        #expect(backends.bus is RedisTripBus)
        #expect(backends.geo is RedisGeoIndex)
        #expect(backends.offers is RedisOfferStore)
        #expect(backends.ingestState is RedisDriverIngestStore)
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
