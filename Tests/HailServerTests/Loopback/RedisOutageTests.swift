import Foundation
import HailCore
import HailNet
import HailProcess
import HailProtocol
import HailScale
import HailServer
import HailTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Redis restarted under a running deployment: publishes that fail are counted and logged, streams that
/// may have missed a message end, and the rider's app resyncs every trip change from PostgreSQL.
@Suite("Redis restarted mid-trip", .serialized)
struct RedisOutageTests {
    /// Whether `subscription` ends by itself within `seconds` (false when the deadline had to end it).
    static func ends(_ subscription: BusSubscription, within seconds: Double) async -> (ended: Bool, count: Int) {
        let deadlinePassed = Mutex(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            deadlinePassed.withLock { $0 = true }
            Task { await subscription.cancel() }
        }
        var count = 0
        for await _ in subscription.messages { count += 1 }
        return (!deadlinePassed.withLock { $0 }, count)
    }

    @Test func aPublishDuringTheOutageIsCountedAndLoggedAndSubscribersAreToldTheyMayHaveMissedIt() async throws {
        let redis = try PrivateRedis()
        try await redis.start()
        defer { redis.kill() }
        let lines = Mutex<[String]>([])
        let bus = try RedisTripBus(
            endpoint: try RedisEndpoint(url: redis.url), log: { line in lines.withLock { $0.append(line) } })
        defer { bus.close() }
        let registry = MetricsRegistry()
        bus.reportFailures(to: registry)

        let watching = await bus.subscribe(to: .trip("t"))
        redis.kill()
        // The subscriber's connection drops: its stream ends so the socket behind it can resync.
        #expect(await Self.ends(watching, within: 10) == (true, 0))
        await bus.publish(BusMessage(kind: .essential, text: "lost"), to: .trip("t"))
        await bus.publish(BusMessage(kind: .disposable, text: "lost too"), to: .trip("t"))
        #expect(registry.value("hail_bus_publish_failures_total", labels: ["kind": "essential"]) == 1)
        #expect(registry.value("hail_bus_publish_failures_total", labels: ["kind": "disposable"]) == 1)
        #expect(registry.render().contains("hail_bus_publish_failures_total{kind=\"essential\"} 1"))

        try await redis.start()
        let again = await bus.subscribe(to: .trip("t"))
        await bus.publish(BusMessage(kind: .essential, text: "after"), to: .trip("t"))
        var iterator = again.messages.makeAsyncIterator()
        #expect(await iterator.next()?.text == "after")
        await again.cancel()
        let logged = lines.withLock { $0 }
        #expect(logged.count == 2)
        #expect(logged.first?.hasPrefix(#"{"event":"bus_publish_failing""#) == true)
        #expect(logged.last == #"{"event":"bus_publish_recovered","failed":2}"#)
    }

    @Test func aTripChangeCommittedWhileRedisIsDownReachesTheRiderWhenTheyReconnect() async throws {
        let redis = try PrivateRedis()
        try await redis.start()
        defer { redis.kill() }
        let environment = ProcessInfo.processInfo.environment
        let postgresURL = try #require(
            environment["HAIL_POSTGRES_URL"], "run `eval \"$(bash scripts/services.sh)\"` or `make test`")
        let schema = "hail_outage_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
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
        let server = try await BackendServer.start(services: services, options: options)
        var loopback = LoopbackServer(
            server: server, databasePath: "/nonexistent/unused.db", tokens: tokens, client: try WebSocketClient(),
            minter: minter)
        loopback.closeBackends = { await scaled.close() }
        let running = loopback
        defer { Task { await running.stop() } }
        let driver = loopback.token(.driver, "driver-1")
        let rider = loopback.token(.rider, "rider-1")

        let driverSocket = try await loopback.socket("/v1/drivers/me/live", token: driver)
        _ = try await driverSocket.next("hello", as: DriverServerFrame.self)
        _ = try await loopback.http("POST", "/v1/drivers/me/status", token: driver, body: #"{"online": true}"#)
        try driverSocket.send(LoopbackRideTests.location(seq: 1, lat: 43.7400, lng: 7.4280))
        _ = try await driverSocket.next("ack", as: DriverServerFrame.self)
        let created = try await loopback.http(
            "POST", "/v1/trips", token: rider, body: LoopbackRideTests.request, key: UUID().uuidString)
        let trip = try HailJSON.decode(Trip.self, from: created.body)
        _ = try await driverSocket.next("offer", as: DriverServerFrame.self)
        let riderSocket = try await loopback.socket("/v1/trips/\(trip.id)/live", token: rider)
        guard case .tripUpdated(let searching) = try await riderSocket.next("tripUpdated", as: RiderServerFrame.self)
        else { throw LoopbackError(description: "no snapshot") }
        #expect(searching.state == .searching)
        let accepted = try await loopback.http(
            "POST", "/v1/trips/\(trip.id)/accept", token: driver, key: UUID().uuidString)
        #expect(accepted.status == 200)
        guard case .tripUpdated(let assigned) = try await riderSocket.next("tripUpdated", as: RiderServerFrame.self)
        else { throw LoopbackError(description: "no assignment") }
        #expect(assigned.version == 2)

        // Redis dies: the rider's stream ends (it cannot promise to deliver); the driver's arrival still
        // commits to PostgreSQL, and its publish is counted as failed.
        redis.kill()
        #expect(await riderSocket.closed().byPeer)
        let arrived = try await loopback.http(
            "POST", "/v1/trips/\(trip.id)/events", token: driver,
            body: #"{"event": "arrived", "idempotencyKey": "\#(UUID().uuidString)"}"#)
        #expect(arrived.status == 200)
        // The change went to the trip's watchers and to the driver: two publishes, both failed.
        let failures = services.metrics.registry.value("hail_bus_publish_failures_total", labels: ["kind": "essential"])
        #expect(failures == 2)

        // Redis is back; the rider's app reconnects and the snapshot carries what it missed.
        try await redis.start()
        let resumed = try await loopback.socket("/v1/trips/\(trip.id)/live", token: rider)
        guard case .tripUpdated(let current) = try await resumed.next("tripUpdated", as: RiderServerFrame.self) else {
            throw LoopbackError(description: "no snapshot after the outage")
        }
        #expect(current.state == .driverArrived)
        #expect(current.version == 3)
        // And live changes flow again.
        let started = try await loopback.http(
            "POST", "/v1/trips/\(trip.id)/events", token: driver,
            body: #"{"event": "started", "idempotencyKey": "\#(UUID().uuidString)"}"#)
        #expect(started.status == 200)
        guard case .tripUpdated(let next) = try await resumed.next("tripUpdated", as: RiderServerFrame.self) else {
            throw LoopbackError(description: "no live change after the outage")
        }
        #expect(next.state == .onTrip)
        #expect(next.version == 4)
    }
}
