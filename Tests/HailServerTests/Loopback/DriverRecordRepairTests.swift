import Foundation
import HailCore
import HailNet
import HailProtocol
import HailScale
import HailServer
import HailTesting
import Testing

/// The scaled shape's derived state repaired after Redis refused while a trip ended: the real server on loopback,
/// PostgreSQL, and a redis-server of this test's own that is stopped with a snapshot and started again from it
/// (Redis back with the stale record, the harder case: an empty Redis makes the driver's next batch look the trip
/// up afresh). Nothing but the reconciler puts the record right: the driver never reconnects a stream, and the
/// repair is counted in `hail_reconciler_repairs_total`.
@Suite("Scaled: a driver's record repaired after Redis refused", .serialized)
struct DriverRecordRepairTests {
    static let near = (lat: 43.7400, lng: 7.4280)

    /// Positions through HTTP, as an app that lost its stream sends them.
    static func location(seq: Int64) -> String {
        let batch = LocationBatch(
            seq: seq,
            points: [LocationPoint(lat: near.lat, lng: near.lng, accuracy: 5, heading: 180, speed: 8, t: Date())])
        return String(decoding: try! HailJSON.encode(batch), as: UTF8.self)
    }

    /// Polls `probe` until it gives a value, each try paced by a round trip to the server (never a timer), failing
    /// after `seconds`.
    static func eventually<T>(
        _ server: LoopbackServer, within seconds: Double, _ what: String, _ probe: () async throws -> T?
    ) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if let value = try await probe() { return value }
            _ = try? await server.http("GET", "/healthz")
        }
        throw LoopbackError(description: "\(what): not within \(seconds) s")
    }

    @Test func aDriverWhoseTripEndedWhileRedisRefusedIsOfferedTheNextTripWithin30SecondsOfItsReturn() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hail-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let redis = try PrivateRedis(dataDirectory: directory.path)
        try await redis.start()
        defer { redis.kill() }
        let postgresURL = try #require(
            ProcessInfo.processInfo.environment["HAIL_POSTGRES_URL"],
            "run `eval \"$(bash scripts/services.sh)\"` or `make test`")
        let schema = "hail_repair_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let backends = try await ScaledBackends.open(
            postgresURL: postgresURL, redisURL: redis.url, databasePath: "/nonexistent/unused.db",
            postgresSchema: schema)
        let scaled = ScaledTestBackends(backends: backends, postgresURL: postgresURL, schema: schema)
        var options = BackendServer.Options()
        options.port = 0
        options.secret = SecureRandom.bytes(32)
        options.log = nil
        // Access tokens are JWTs of a key set, as on every scaled node.
        let (keys, minter) = try LoopbackServer.keySet()
        options.tokenKeys = keys
        let tokens = options.tokenAuthority
        let services = try await backends.services(
            configuration: options.configuration, tokens: tokens, time: .system())
        let backend = try await BackendServer.start(services: services, options: options)
        var server = LoopbackServer(
            server: backend, databasePath: "/nonexistent/unused.db", tokens: tokens, client: try WebSocketClient(),
            minter: minter)
        server.closeBackends = { await scaled.close() }
        let driver = server.token(.driver, "driver-1")

        // A driver on a trip.
        #expect(
            try await server.http("POST", "/v1/drivers/me/status", token: driver, body: #"{"online": true}"#).status
                == 200)
        #expect(
            try await server.http("POST", "/v1/drivers/me/locations", token: driver, body: Self.location(seq: 1)).status
                == 200)
        let created = try await server.http(
            "POST", "/v1/trips", token: server.token(.rider, "rider-1"), body: LoopbackRideTests.request,
            key: UUID().uuidString)
        let first = try HailJSON.decode(Trip.self, from: created.body)
        #expect(await services.dispatcher.currentOffer(for: "driver-1")?.tripID == first.id)
        #expect(
            try await server.http("POST", "/v1/trips/\(first.id)/accept", token: driver, key: UUID().uuidString).status
                == 200)
        for event in ["arrived", "started"] {
            let answer = try await server.http(
                "POST", "/v1/trips/\(first.id)/events", token: driver,
                body: #"{"event": "\#(event)", "idempotencyKey": "\#(UUID().uuidString)"}"#)
            #expect(answer.status == 200, "\(event)")
        }
        #expect(
            try await backends.ingestState.tripMarks(driverIDs: ["driver-1"])
                == ["driver-1": DriverTripMark(tripID: first.id, version: 4, active: true)])

        // Redis refuses while the trip ends: the driver is answered 200 completed all the same.
        try redis.shutdownSaving()
        let ended = try await server.http(
            "POST", "/v1/trips/\(first.id)/events", token: driver,
            body: #"{"event": "ended", "idempotencyKey": "\#(UUID().uuidString)"}"#)
        #expect(ended.status == 200)
        #expect(try HailJSON.decode(Trip.self, from: ended.body).state == .completed)
        #expect(services.fleet.hasSuspects)

        // Redis is back on the same port with the snapshot: the record still says onTrip at version 4.
        try await redis.start()
        let healedAt = ContinuousClock.now
        let mark = try await Self.eventually(server, within: 30, "the driver's record repaired") {
            () -> DriverTripMark? in
            let mark = try? await backends.ingestState.tripMarks(driverIDs: ["driver-1"])["driver-1"]
            return mark?.active == false ? mark : nil
        }
        #expect(mark == DriverTripMark(tripID: first.id, version: 5, active: false))
        // The reconciler did it, by repairing the record or by redelivering the unpublished end (whose observer
        // writes the record); a pass counts its repairs when it ends, after its redeliveries, so wait for that.
        _ = try await Self.eventually(server, within: 10, "the reconciler's pass counted") { () -> Bool? in
            let repairs = ["driverTrip", "redelivered"].map {
                services.metrics.registry.value("hail_reconciler_repairs_total", labels: ["kind": $0])
            }
            return repairs.reduce(0, +) >= 1 ? true : nil
        }

        // The driver, still online and the only car near the next pickup, is offered the next trip.
        _ = try await Self.eventually(server, within: 10, "a position taken") { () -> Bool? in
            let answer = try? await server.http(
                "POST", "/v1/drivers/me/locations", token: driver, body: Self.location(seq: 2))
            return answer?.status == 200 ? true : nil
        }
        let next = try HailJSON.decode(
            Trip.self,
            from: try await server.http(
                "POST", "/v1/trips", token: server.token(.rider, "rider-2"), body: LoopbackRideTests.request,
                key: UUID().uuidString
            ).body)
        let offered = try await Self.eventually(server, within: 30, "the next trip offered") { () -> String? in
            await services.dispatcher.currentOffer(for: "driver-1")?.tripID
        }
        #expect(offered == next.id)
        #expect(ContinuousClock.now - healedAt < .seconds(30))
        // Their app, reconnecting, is shown the offer.
        let socket = try await server.socket("/v1/drivers/me/live", token: driver)
        guard case .offer(let shown) = try await socket.next("offer", as: DriverServerFrame.self) else {
            throw LoopbackError(description: "no offer frame")
        }
        #expect(shown.trip.id == next.id)
        // Closed before the test returns: connections still closing at exit crash libpq's teardown.
        await server.stop()
    }
}
