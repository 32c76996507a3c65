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

    /// Each piece would work on its own; together, with two nodes, offers fenced by leases only one node sees would
    /// let a second node offer a trip its first already offered. So the node refuses to start, and says why.
    @Test func redisOffersWithInMemorySearchLeasesAreRefusedAtStartNamingEachPiece() async throws {
        let client = RedisClient(endpoint: try RedisEndpoint(url: "redis://127.0.0.1:1"))
        defer { client.close() }
        let tokens = TokenAuthority(authenticator: HMACAuthenticator(secret: Array(repeating: 7, count: 32)))
        do {
            _ = try await ServerServices.make(
                configuration: ServerConfiguration(), tokens: tokens, time: .system(), trips: MemoryTripStore(),
                history: MemoryLocationHistoryStore(),
                offers: RedisOfferStore(client: client, prefix: "hail:offers", leasesPrefix: "hail:searches"))
            Issue.record("a mix of Redis offers and in-memory leases was accepted")
        } catch {
            #expect(error.isMixedScopes)
            #expect(
                error.description
                    == "an inconsistent mix of backends: offers is shared by every node (Redis) but the bus, the geo "
                    + "index, the drivers' ingest state, search leases are this process's own; an offer is fenced by "
                    + "its search's lease and a position's write moves the geo index, the bus and the ingest state "
                    + "together, so give them all Redis (--redis) or none")
        }
    }

    @Test func anInProcessBusBesideRedisStoresIsRefusedToo() async throws {
        let endpoint = try RedisEndpoint(url: "redis://127.0.0.1:1")
        let client = RedisClient(endpoint: endpoint)
        let pipeline = RedisIngestPipeline(endpoint: endpoint)
        defer {
            pipeline.close()
            client.close()
        }
        let tokens = TokenAuthority(authenticator: HMACAuthenticator(secret: Array(repeating: 7, count: 32)))
        await #expect(throws: ServerServicesError.self) {
            _ = try await ServerServices.make(
                configuration: ServerConfiguration(), tokens: tokens, time: .system(), trips: MemoryTripStore(),
                history: MemoryLocationHistoryStore(), bus: InProcessTripBus(),
                geo: RedisGeoIndex(client: client, prefix: "hail:drivers"),
                offers: RedisOfferStore(client: client, prefix: "hail:offers", leasesPrefix: "hail:searches"),
                ingestState: RedisDriverIngestStore(client: client, prefix: "hail:ingest"), ingestPipeline: pipeline,
                searchLeases: RedisSearchLeases(client: client, prefix: "hail:searches"))
        }
    }
}
