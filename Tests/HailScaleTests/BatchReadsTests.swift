import Foundation
import HailScale
import HailServer
import Testing

/// The batch reads and writes a node makes for many driver streams opening at once (`DriverSetUps`), on the real
/// Redis: they answer what the one-driver calls answer.
@Suite(
    "Batched reads of opening streams on Redis",
    .enabled(if: ScaleServices.hasRedis, "start Redis with scripts/services.sh"))
struct BatchReadsTests {
    let now = Date(timeIntervalSince1970: 1_796_220_000)

    @Test func theLiveOffersOfManyDriversAreTheOnesEachHoldsAlone() async throws {
        let client = RedisClient(endpoint: try RedisEndpoint(url: try #require(ScaleServices.redisURL)))
        defer { client.close() }
        let store = RedisOfferStore(client: client, prefix: ScaleServices.uniqueName("offers"))
        for (trip, driver) in [("trip-1", "driver-1"), ("trip-3", "driver-3"), ("trip-4", "driver-4")] {
            #expect(
                try await store.place(
                    DispatchMachine.Offer(tripID: trip, driverID: driver, expiresAt: now + 15), now: now))
        }
        // Being answered is no longer live: the batch leaves it out as `offer(heldBy:)` does.
        #expect(try await store.claim(tripID: "trip-4", driverID: "driver-4", now: now))
        let drivers = ["driver-1", "driver-2", "driver-3", "driver-4"]
        let batch = try await store.offers(heldBy: drivers, now: now)
        #expect(batch.mapValues(\.tripID) == ["driver-1": "trip-1", "driver-3": "trip-3"])
        for driver in drivers {
            #expect(try await store.offer(heldBy: driver, now: now)?.tripID == batch[driver]?.tripID)
        }
        #expect(try await store.offers(heldBy: [], now: now).isEmpty)
    }

    @Test func loadedTripsForManyDriversStoresWhatLoadedTripStoresForEach() async throws {
        let client = RedisClient(endpoint: try RedisEndpoint(url: try #require(ScaleServices.redisURL)))
        defer { client.close() }
        let batched = RedisDriverIngestStore(client: client, prefix: ScaleServices.uniqueName("ingest"))
        let oneByOne = RedisDriverIngestStore(client: client, prefix: ScaleServices.uniqueName("ingest"))
        let drivers = ["driver-1", "driver-2", "driver-3"]
        try await batched.loadedTrips(driverIDs: drivers, active: [:])
        for driver in drivers { try await oneByOne.loadedTrip(nil, driverID: driver) }
        let marks = try await batched.tripMarks(driverIDs: drivers)
        #expect(marks.count == 3)
        #expect(marks.values.allSatisfy { $0.tripID.isEmpty && !$0.active })
        #expect(marks == (try await oneByOne.tripMarks(driverIDs: drivers)))
    }
}
