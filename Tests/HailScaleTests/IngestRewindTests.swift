import Foundation
import HailCore
import HailScale
import HailServer
import HailTesting
import HailTime
import Synchronization
import Testing

/// A geo index whose first update fails, as Redis or a disk would for a moment (a fake: unit test only).
final class GeoIndexFailingOnce: GeoIndex {
    private let failed = Mutex(false)
    private let index = MemoryGeoIndex()

    struct Unavailable: Error {}

    func update(driverID: String, coordinate: Coordinate, seenAt: Date) throws {
        let first = failed.withLock { failed in
            defer { failed = true }
            return !failed
        }
        if first { throw Unavailable() }
        index.update(driverID: driverID, coordinate: coordinate, seenAt: seenAt)
    }

    func remove(driverID: String) { index.remove(driverID: driverID) }
    func nearest(to center: Coordinate, radius: Double, limit: Int, now: Date) -> [GeoHit] {
        index.nearest(to: center, radius: radius, limit: limit, now: now)
    }
    func evict(silentFor silence: TimeInterval, now: Date) -> [String] { index.evict(silentFor: silence, now: now) }
}

/// A batch that fails half-way leaves no trace of its seq, so the app's retry of it is applied, on the
/// embedded ingest state and on Redis alike.
@Suite("A failed batch is retried, not taken for a duplicate")
struct IngestRewindTests {
    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case memory, redis
        var testDescription: String { rawValue }
    }

    @Test(arguments: Store.allCases) func theRetryOfABatchThatFailedHalfWayIsApplied(store: Store) async throws {
        let ingestState: any DriverIngestStore
        var client: RedisClient?
        switch store {
        case .memory:
            ingestState = MemoryDriverIngestStore()
        case .redis:
            let redisURL = try #require(ScaleServices.redisURL, "start Redis with scripts/services.sh")
            client = RedisClient(endpoint: try RedisEndpoint(url: redisURL))
            ingestState = RedisDriverIngestStore(client: client!, prefix: ScaleServices.uniqueName("ingest"))
        }
        defer { client?.close() }
        let time = Timeline(clock: ManualClock(), origin: ScaleNode.epoch)
        let fleet = Fleet(
            geo: GeoIndexFailingOnce(), trips: MemoryTripStore(), history: MemoryLocationHistoryStore(),
            bus: InProcessTripBus(), time: time, metrics: ServerMetrics(), ingestState: ingestState)
        try await fleet.setStatus(driverID: "driver-1", online: true, degraded: false)
        let batch = LocationBatch(
            seq: 4,
            points: [LocationPoint(lat: 43.74, lng: 7.428, accuracy: 5, heading: 90, speed: 8, t: time.now())])
        await #expect(throws: GeoIndexFailingOnce.Unavailable.self) {
            _ = try await fleet.ingest(driverID: "driver-1", batch: batch, client: nil)
        }
        #expect(try await ingestState.state(driverID: "driver-1")?.lastSeq == nil)
        let retried = try await fleet.ingest(driverID: "driver-1", batch: batch, client: nil)
        #expect(retried.applied)
        #expect(retried.accepted == 1)
        #expect(await fleet.position(driverID: "driver-1")?.seq == 4)
        #expect(try await ingestState.state(driverID: "driver-1")?.lastSeq == 4)
    }
}
