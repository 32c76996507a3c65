import Foundation
import HailCore
import HailProtocol
import HailServer
import HailTesting
import Testing

/// A driver's online status survives Redis losing it without a disconnect (`FLUSHALL`, a key evicted, a restart
/// empty): the app keeps saying online, and the node taking its positions puts the status back from what it last
/// saw, or, when it never saw it, from the batch itself (a driver sending positions is online). The real server on
/// loopback, PostgreSQL, and a redis-server of this test's own.
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

    /// The fault suite's `redis-restart-empty` (I6): a driver on a trip when Redis restarted empty; the trip ends
    /// (its after-commit write may make the driver's hash again, with the trip's fields and no status), and the
    /// driver's next batch reaches another node, one that never saw their status. That batch puts `online` back
    /// from what a driver sending positions means, and the next trip is offered to them. Two nodes on one
    /// PostgreSQL schema and a redis-server of this test's own, killed and started again empty on its port.
    @Test func aDriverOnATripWhenRedisRestartedEmptyIsOnlineAgainFromTheirNextBatchOnAnotherNode() async throws {
        let postgresURL = try #require(
            ProcessInfo.processInfo.environment["HAIL_POSTGRES_URL"], "run `eval \"$(bash scripts/services.sh)\"`")
        let redis = try PrivateRedis()
        try await redis.start()
        defer { redis.kill() }
        let schema = "hail_presence_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let first = try await BackendDeadlineTests.serve(
            postgresURL: postgresURL, schemaURL: postgresURL, redisURL: redis.url, schema: schema)
        let second = try await BackendDeadlineTests.serve(
            postgresURL: postgresURL, schemaURL: postgresURL, redisURL: redis.url, schema: schema)
        let restored = "hail_driver_status_restored_total"
        // Each node signs its own tokens; the subject is the driver.
        let driver = first.token(.driver, "driver-1")

        // Online through the first node, and on a trip.
        #expect(
            try await first.http("POST", "/v1/drivers/me/status", token: driver, body: #"{"online": true}"#).status
                == 200)
        #expect(
            try await first.http(
                "POST", "/v1/drivers/me/locations", token: driver, body: DriverRecordRepairTests.location(seq: 1)
            ).status == 200)
        let created = try await first.http(
            "POST", "/v1/trips", token: first.token(.rider, "rider-1"), body: LoopbackRideTests.request,
            key: UUID().uuidString)
        #expect(created.status == 201)
        let trip = try HailJSON.decode(Trip.self, from: created.body)
        #expect(await first.server.services.dispatcher.currentOffer(for: "driver-1")?.tripID == trip.id)
        #expect(
            try await first.http("POST", "/v1/trips/\(trip.id)/accept", token: driver, key: UUID().uuidString).status
                == 200)
        for event in ["arrived", "started"] {
            let answer = try await first.http(
                "POST", "/v1/trips/\(trip.id)/events", token: driver,
                body: #"{"event": "\#(event)", "idempotencyKey": "\#(UUID().uuidString)"}"#)
            #expect(answer.status == 200, "\(event)")
        }

        // Redis restarts empty. The trip ends through the first node: the app's outbox sends "ended" until it is
        // answered (a node's connection to the old Redis fails once, then reconnects).
        redis.kill()
        try await redis.start()
        let endKey = UUID().uuidString
        let ended = try await DriverRecordRepairTests.eventually(first, within: 20, "ended answered") {
            () -> Trip? in
            let answer = try? await first.http(
                "POST", "/v1/trips/\(trip.id)/events", token: driver,
                body: #"{"event": "ended", "idempotencyKey": "\#(endKey)"}"#)
            guard let answer, answer.status == 200 else { return nil }
            return try HailJSON.decode(Trip.self, from: answer.body)
        }
        #expect(ended.state == .completed)

        // The app goes on sending positions; the balancer sends the next batch to the second node.
        let onSecond = second.token(.driver, "driver-1")
        _ = try await DriverRecordRepairTests.eventually(second, within: 20, "a batch taken by the second node") {
            () -> Bool? in
            let answer = try? await second.http(
                "POST", "/v1/drivers/me/locations", token: onSecond, body: DriverRecordRepairTests.location(seq: 2))
            return answer?.status == 200 ? true : nil
        }
        #expect(second.server.services.metrics.registry.value(restored) == 1)
        // No batch comes after it, so only that batch can have made them online; the read is retried only because
        // a node's first command on a connection to the old Redis fails (`status` says offline when it cannot read).
        _ = try await DriverRecordRepairTests.eventually(second, within: 20, "online in Redis") { () -> Bool? in
            await second.server.services.fleet.status(driverID: "driver-1").online ? true : nil
        }
        #expect(first.server.services.metrics.registry.value(restored) == 0)

        // The driver, the only car near the next pickup, is offered the next trip.
        let nextKey = UUID().uuidString
        let rider = second.token(.rider, "rider-2")
        let next = try await DriverRecordRepairTests.eventually(second, within: 20, "the next trip requested") {
            () -> Trip? in
            let answer = try? await second.http(
                "POST", "/v1/trips", token: rider, body: LoopbackRideTests.request, key: nextKey)
            guard let answer, answer.status == 201 else { return nil }
            return try HailJSON.decode(Trip.self, from: answer.body)
        }
        let offered = try await DriverRecordRepairTests.eventually(second, within: 20, "the next trip offered") {
            () -> String? in
            await second.server.services.dispatcher.currentOffer(for: "driver-1")?.tripID
        }
        #expect(offered == next.id)
        // Closed before the test returns: connections still closing at exit crash libpq's teardown.
        await second.stop()
        await first.stop()
    }
}
