import Foundation
import HailCore
import HailProtocol
import HailServer
import HailTesting
import Testing

/// A driver's online status survives Redis losing it without a disconnect (`FLUSHALL`, a key evicted): the app,
/// which sends its status again only when a stream reconnects, keeps saying online, and the node taking its
/// positions puts the status back from what it last saw. The real server on loopback, PostgreSQL, and a
/// redis-server of this test's own.
@Suite("Scaled: a driver stays dispatchable after FLUSHALL", .serialized)
struct DriverPresenceTests {
    @Test func aDriverSendingPositionsAfterFlushallIsOnlineAgainAndOfferedTheNextTrip() async throws {
        let postgresURL = try #require(
            ProcessInfo.processInfo.environment["HAIL_POSTGRES_URL"], "run `eval \"$(bash scripts/services.sh)\"`")
        let redis = try PrivateRedis()
        try await redis.start()
        defer { redis.kill() }
        let loopback = try await BackendDeadlineTests.serve(
            postgresURL: postgresURL, schemaURL: postgresURL, redisURL: redis.url)
        let services = loopback.server.services
        let driver = loopback.token(.driver, "driver-1")
        #expect(
            try await loopback.http("POST", "/v1/drivers/me/status", token: driver, body: #"{"online": true}"#).status
                == 200)
        #expect(
            try await loopback.http(
                "POST", "/v1/drivers/me/locations", token: driver, body: DriverRecordRepairTests.location(seq: 1)
            ).status == 200)
        #expect(await services.fleet.status(driverID: "driver-1").online == true)

        try redis.flushAll()
        #expect(await services.fleet.status(driverID: "driver-1").online == false)
        #expect(services.metrics.registry.value("hail_driver_status_restored_total") == 0)

        // The app never hears of it and goes on sending positions.
        #expect(
            try await loopback.http(
                "POST", "/v1/drivers/me/locations", token: driver, body: DriverRecordRepairTests.location(seq: 2)
            ).status == 200)
        #expect(await services.fleet.status(driverID: "driver-1").online == true)
        #expect(services.metrics.registry.value("hail_driver_status_restored_total") == 1)
        let created = try await loopback.http(
            "POST", "/v1/trips", token: loopback.token(.rider, "rider-1"), body: LoopbackRideTests.request,
            key: UUID().uuidString)
        #expect(created.status == 201)
        let trip = try HailJSON.decode(Trip.self, from: created.body)
        #expect(await services.dispatcher.currentOffer(for: "driver-1")?.tripID == trip.id)
        await loopback.stop()
    }

    @Test func aDriverWhoWentOfflineStaysOfflineWhenTheirStateVanishes() async throws {
        let postgresURL = try #require(
            ProcessInfo.processInfo.environment["HAIL_POSTGRES_URL"], "run `eval \"$(bash scripts/services.sh)\"`")
        let redis = try PrivateRedis()
        try await redis.start()
        defer { redis.kill() }
        let loopback = try await BackendDeadlineTests.serve(
            postgresURL: postgresURL, schemaURL: postgresURL, redisURL: redis.url)
        let services = loopback.server.services
        let driver = loopback.token(.driver, "driver-1")
        #expect(
            try await loopback.http("POST", "/v1/drivers/me/status", token: driver, body: #"{"online": true}"#).status
                == 200)
        #expect(
            try await loopback.http(
                "POST", "/v1/drivers/me/locations", token: driver, body: DriverRecordRepairTests.location(seq: 1)
            ).status == 200)
        #expect(
            try await loopback.http("POST", "/v1/drivers/me/status", token: driver, body: #"{"online": false}"#).status
                == 200)

        try redis.flushAll()
        #expect(
            try await loopback.http(
                "POST", "/v1/drivers/me/locations", token: driver, body: DriverRecordRepairTests.location(seq: 2)
            ).status == 200)
        #expect(await services.fleet.status(driverID: "driver-1").online == false)
        #expect(services.metrics.registry.value("hail_driver_status_restored_total") == 0)
        await loopback.stop()
    }
}
