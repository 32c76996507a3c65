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

/// A location history whose first append fails, as PostgreSQL would for a moment (a fake: unit test only).
actor HistoryFailingOnce: LocationHistoryStore {
    private var failed = false
    private let history = MemoryLocationHistoryStore()

    struct Unavailable: Error {}

    func append(tripID: String, points: [HistoryPoint]) async throws {
        guard failed else {
            failed = true
            throw Unavailable()
        }
        await history.append(tripID: tripID, points: points)
    }

    func history(tripID: String) async -> [HistoryPoint] { await history.history(tripID: tripID) }
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

    /// The history's commit fails after the batch's filter was stored: the retry, judged by the filter as it was before
    /// the batch, keeps its fixes, which reach the trip's history. Left at the failed batch's newest fix, the filter
    /// took the retry's fixes for duplicates, and the retry was acknowledged with none of them charged (I8).
    @Test(arguments: Store.allCases) func theRetryOfABatchWhoseHistoryFailedReachesTheHistory(store: Store)
        async throws
    {
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
        let trips = MemoryTripStore()
        let history = HistoryFailingOnce()
        let fleet = Fleet(
            geo: MemoryGeoIndex(), trips: trips, history: history, bus: InProcessTripBus(), time: time,
            metrics: ServerMetrics(), ingestState: ingestState)
        let driver = Driver(
            id: "driver-1", name: "Ana", carModel: "Zoe", plate: "MC-1", rating: 4.9,
            photoURL: URL(string: "https://example.invalid/ana.jpg")!)
        let trip = Trip(
            id: "trip-1", state: .onTrip, pickup: Coordinate(lat: 43.7396, lng: 7.4276),
            dropoff: Coordinate(lat: 43.7314, lng: 7.4197), productID: .economy, version: 4, driver: driver)
        let record = TripRecord(trip: trip, riderID: "rider-1")
        let event = TripEventRecord(
            tripID: trip.id, version: 4, intent: "started", actor: "driver:driver-1", state: .onTrip, at: time.now())
        #expect(await trips.commit(TripCommit(record: record, expectedVersion: nil, event: event)) == .committed)
        try await ingestState.recordTrip(record)

        let points = [
            LocationPoint(lat: 43.7396, lng: 7.4276, accuracy: 5, heading: 200, speed: 8, t: time.now()),
            LocationPoint(lat: 43.7395, lng: 7.4275, accuracy: 5, heading: 200, speed: 8, t: time.now() + 2),
        ]
        let batch = LocationBatch(seq: 4, points: points)
        await #expect(throws: HistoryFailingOnce.Unavailable.self) {
            _ = try await fleet.ingest(driverID: "driver-1", batch: batch, client: nil)
        }
        let rewound = try await ingestState.state(driverID: "driver-1")
        #expect(rewound?.lastSeq == nil)
        #expect(rewound?.filter.lastAccepted == nil)
        let retried = try await fleet.ingest(driverID: "driver-1", batch: batch, client: nil)
        #expect(retried.accepted == 2)
        #expect(await history.history(tripID: trip.id).map(\.coordinate) == points.map(\.coordinate))
    }
}
