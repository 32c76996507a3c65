import Foundation
import HailCore
import HailProtocol
import HailScale
import HailServer
import Testing

@Suite(
    "Two nodes on one PostgreSQL and one Redis",
    .enabled(
        if: ScaleServices.hasPostgres && ScaleServices.hasRedis, "start PostgreSQL and Redis with scripts/services.sh"))
struct TwoNodeTests {
    static let request = Data(
        #"{"pickup": {"lat": 43.7396, "lng": 7.4276}, "dropoff": {"lat": 43.7314, "lng": 7.4197}, "productID": "economy"}"#
            .utf8)

    @Test func aTripChangedOnOneNodeReachesItsWatcherOnTheOther() async throws {
        try await ScaleServices.withFreshSchema { url, schema in
            let redisURL = try #require(ScaleServices.redisURL)
            let prefix = ScaleServices.uniqueName("test") + ":"
            let nodeA = try await ScaleNode(postgresURL: url, schema: schema, redisURL: redisURL, prefix: prefix)
            let nodeB = try await ScaleNode(postgresURL: url, schema: schema, redisURL: redisURL, prefix: prefix)
            defer {
                nodeA.close()
                nodeB.close()
            }
            try await nodeA.online(driver: "driver-1", at: Coordinate(lat: 43.7400, lng: 7.4280))
            let key = UUID().uuidString
            let created = await nodeA.call(
                "POST", "/v1/trips", token: nodeA.token(.rider, "rider-1"), body: Self.request, key: key)
            #expect(created.status == 201)
            let trip = try HailJSON.decode(Trip.self, from: created.body)

            // The rider's socket is on node B.
            let watching = await nodeB.services.bus.subscribe(to: .trip(trip.id))
            // The request retried through node B replays node A's answer: no second trip.
            let replay = await nodeB.call(
                "POST", "/v1/trips", token: nodeB.token(.rider, "rider-1"), body: Self.request, key: key)
            #expect(replay.status == created.status)
            #expect(replay.body == created.body)
            #expect(try await nodeB.services.trips.activeRecords().count == 1)

            let accepted = await nodeA.call(
                "POST", "/v1/trips/\(trip.id)/accept", token: nodeA.token(.driver, "driver-1"), key: UUID().uuidString)
            #expect(accepted.status == 200)
            let seen = await RedisTests.first(1, of: watching)
            #expect(seen.first?.kind == .essential)
            #expect(seen.first?.text.contains("driverAssigned") == true)
            #expect(try await nodeB.services.trips.record(id: trip.id)?.trip.state == .driverAssigned)
        }
    }
}
