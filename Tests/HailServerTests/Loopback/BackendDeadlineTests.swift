import Foundation
import HailCore
import HailNet
import HailProtocol
import HailScale
import HailServer
import HailTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A backend that stops answering (Redis paused, PostgreSQL behind a path that drops packets) costs each request
/// a 503 with `Retry-After` within its deadline, never a hang; `/readyz` names the backend; and everything
/// answers again once it is back. Each test runs the scaled shape over real sockets, with the backend it
/// silences its own: a private `redis-server`, or a proxy of its own in front of the shared PostgreSQL.
@Suite("A silent backend costs a 503 with Retry-After, never a hang", .serialized)
struct BackendDeadlineTests {
    /// What an app would see of one answer.
    struct Answer {
        let status: Int
        let retryAfter: String?
        let body: Data
    }

    /// The longest the test waits for any one answer: its failure, since the server's own deadline is 4 s.
    static let clientTimeout = 10.0

    static let estimate = #"{"pickup": {"lat": 43.7384, "lng": 7.4246}, "dropoff": {"lat": 43.7310, "lng": 7.4190}}"#

    /// One request as an app sends it, failing the test when no answer comes within `clientTimeout`.
    static func send(
        _ base: String, _ method: String, _ path: String, token: String? = nil, body: String? = nil,
        key: String? = nil
    ) async throws -> Answer {
        try await within(clientTimeout, "\(method) \(path)") {
            var request = URLRequest(url: URL(string: base + path)!)
            request.httpMethod = method
            request.timeoutInterval = clientTimeout + 5
            if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
            if let key { request.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
            if let body {
                request.httpBody = Data(body.utf8)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            let (data, response) = try await URLSession.shared.dataRunningToCompletion(for: request)
            let http = response as? HTTPURLResponse
            return Answer(
                status: http?.statusCode ?? 0, retryAfter: http?.value(forHTTPHeaderField: "Retry-After"), body: data)
        }
    }

    /// `/readyz` until it says ready (it caches its verdict for half a second), failing after 30 s.
    static func ready(_ base: String) async throws -> ReadinessVerdict {
        try await within(30, "/readyz ready again") {
            while true {
                let answer = try await send(base, "GET", "/readyz")
                let verdict = try HailJSON.decode(ReadinessVerdict.self, from: answer.body)
                if answer.status == 200 { return verdict }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// The scaled shape on `postgresURL` and `redisURL`, served over loopback.
    /// `schema` is the PostgreSQL schema and, with a colon, the Redis key prefix (a fresh one when nil).
    static func serve(postgresURL: String, schemaURL: String, redisURL: String, schema: String? = nil) async throws
        -> LoopbackServer
    {
        let schema = schema ?? "hail_deadline_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let backends = try await ScaledBackends.open(
            postgresURL: postgresURL, redisURL: redisURL, databasePath: "/nonexistent/unused.db",
            postgresSchema: schema, redisPrefix: schema + ":")
        let scaled = ScaledTestBackends(backends: backends, postgresURL: schemaURL, schema: schema)
        var options = BackendServer.Options()
        options.port = 0
        options.secret = SecureRandom.bytes(32)
        options.log = nil
        options.configuration.requestDeadline = ServerConfiguration.defaultRequestDeadline
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
        return loopback
    }

    static func location(seq: Int64) throws -> String {
        let point = LocationPoint(lat: 43.7400, lng: 7.4280, accuracy: 5, heading: 90, speed: 8, t: Date())
        return String(
            decoding: try HailJSON.encode(LocationBatch(seq: seq, points: [point], backlog: false)), as: UTF8.self)
    }

    @Test func redisPausedCostsA503WithRetryAfterAndReadyzNamesRedisUntilItAnswersAgain() async throws {
        let postgresURL = try #require(
            ProcessInfo.processInfo.environment["HAIL_POSTGRES_URL"], "run `eval \"$(bash scripts/services.sh)\"`")
        let redis = try PrivateRedis()
        try await redis.start()
        defer { redis.kill() }
        let loopback = try await Self.serve(postgresURL: postgresURL, schemaURL: postgresURL, redisURL: redis.url)
        let base = loopback.base
        let driver = loopback.token(.driver, "driver-1")
        let rider = loopback.token(.rider, "rider-1")
        #expect(
            try await Self.send(base, "POST", "/v1/drivers/me/status", token: driver, body: #"{"online": true}"#).status
                == 200)
        #expect(
            try await Self.send(
                base, "POST", "/v1/drivers/me/locations", token: driver, body: try Self.location(seq: 1)
            ).status == 200)
        #expect(try await Self.send(base, "POST", "/v1/estimates", token: rider, body: Self.estimate).status == 200)
        #expect(try await Self.ready(base).backends == ["postgresql": "ok", "redis": "ok"])

        redis.pause()
        let estimates = try await Self.send(base, "POST", "/v1/estimates", token: rider, body: Self.estimate)
        #expect(estimates.status == 503)
        #expect(estimates.retryAfter == "2")
        #expect(try HailJSON.decode(ErrorBody.self, from: estimates.body).error.code == .unavailable)
        let locations = try await Self.send(
            base, "POST", "/v1/drivers/me/locations", token: driver, body: try Self.location(seq: 2))
        #expect(locations.status == 503)
        #expect(locations.retryAfter == "2")
        // A trip request commits in PostgreSQL alone: it is answered with the trip, whose search dispatch takes up
        // once Redis answers (what follows the commit waits on Redis, not the answer).
        let key = UUID().uuidString
        let request = try await Self.send(
            base, "POST", "/v1/trips", token: rider, body: LoopbackRideTests.request, key: key)
        #expect(request.status == 201)
        #expect(try HailJSON.decode(Trip.self, from: request.body).state == .searching)
        let readiness = try await Self.send(base, "GET", "/readyz")
        #expect(readiness.status == 503)
        #expect(readiness.retryAfter == "1")
        let verdict = try HailJSON.decode(ReadinessVerdict.self, from: readiness.body)
        #expect(verdict.status == "unavailable")
        #expect(verdict.failed == ["redis"])
        #expect(verdict.backends["postgresql"] == "ok")
        // Liveness is not readiness: the process itself is fine.
        #expect(try await Self.send(base, "GET", "/healthz").status == 200)

        redis.resume()
        #expect(try await Self.ready(base).failed == [])
        #expect(try await Self.send(base, "POST", "/v1/estimates", token: rider, body: Self.estimate).status == 200)
        #expect(
            try await Self.send(
                base, "POST", "/v1/drivers/me/locations", token: driver, body: try Self.location(seq: 2)
            ).status == 200)
        // Sent again under its key, the request replays the committed answer: one trip, not two.
        let retried = try await Self.send(
            base, "POST", "/v1/trips", token: rider, body: LoopbackRideTests.request, key: key)
        #expect(retried.status == 201)
        #expect(retried.body == request.body)
        await loopback.stop()
    }

    /// A cancel commits in PostgreSQL alone; what follows it (the publish, the driver's record, the search's offers
    /// and lease) is Redis's and is reconciled later. With Redis silent the rider gets the committed answer, while
    /// Redis is still paused, never a 503 for a cancel that took effect.
    @Test func cancelCommittedWhileRedisIsPausedIsAnsweredWithTheCancelledTrip() async throws {
        let postgresURL = try #require(
            ProcessInfo.processInfo.environment["HAIL_POSTGRES_URL"], "run `eval \"$(bash scripts/services.sh)\"`")
        let redis = try PrivateRedis()
        try await redis.start()
        defer { redis.kill() }
        let loopback = try await Self.serve(postgresURL: postgresURL, schemaURL: postgresURL, redisURL: redis.url)
        let base = loopback.base
        let rider = loopback.token(.rider, "rider-1")
        let requested = try await Self.send(
            base, "POST", "/v1/trips", token: rider, body: LoopbackRideTests.request, key: UUID().uuidString)
        #expect(requested.status == 201)
        let trip = try HailJSON.decode(Trip.self, from: requested.body)
        #expect(trip.state == .searching)

        redis.pause()
        let key = UUID().uuidString
        let cancelled = try await Self.send(
            base, "POST", "/v1/trips/\(trip.id)/cancel", token: rider, body: "{}", key: key)
        #expect(cancelled.status == 200)
        let answered = try HailJSON.decode(Trip.self, from: cancelled.body)
        #expect(answered.id == trip.id)
        #expect(answered.state == .cancelled)
        #expect(answered.version == trip.version + 1)

        redis.resume()
        #expect(try await Self.ready(base).failed == [])
        // The same key replays the very answer; the trip is cancelled for good.
        let replayed = try await Self.send(
            base, "POST", "/v1/trips/\(trip.id)/cancel", token: rider, body: "{}", key: key)
        #expect(replayed.status == 200)
        #expect(replayed.body == cancelled.body)
        let read = try await Self.send(base, "GET", "/v1/trips/\(trip.id)", token: rider)
        #expect(try HailJSON.decode(Trip.self, from: read.body).state == .cancelled)
        await loopback.stop()
    }

    @Test func postgresBlackHoledCostsA503WithRetryAfterAndReadyzNamesItUntilThePathHeals() async throws {
        let environment = ProcessInfo.processInfo.environment
        let postgresURL = try #require(environment["HAIL_POSTGRES_URL"], "run `eval \"$(bash scripts/services.sh)\"`")
        let redisURL = try #require(environment["HAIL_REDIS_URL"])
        var components = try #require(URLComponents(string: postgresURL))
        let proxy = try BlackHoleProxy(targetPort: try #require(components.port))
        defer { proxy.stop() }
        components.port = proxy.port
        let proxied = try #require(components.string)
        let loopback = try await Self.serve(postgresURL: proxied, schemaURL: postgresURL, redisURL: redisURL)
        let base = loopback.base
        let rider = loopback.token(.rider, "rider-1")
        #expect(try await Self.send(base, "GET", "/v1/trips/active", token: rider).status == 204)
        #expect(try await Self.ready(base).backends == ["postgresql": "ok", "redis": "ok"])

        proxy.blackHole(true)
        let key = UUID().uuidString
        let request = try await Self.send(
            base, "POST", "/v1/trips", token: rider, body: LoopbackRideTests.request, key: key)
        #expect(request.status == 503)
        #expect(request.retryAfter == "2")
        let active = try await Self.send(base, "GET", "/v1/trips/active", token: rider)
        #expect(active.status == 503)
        #expect(active.retryAfter == "2")
        let readiness = try await Self.send(base, "GET", "/readyz")
        #expect(readiness.status == 503)
        let verdict = try HailJSON.decode(ReadinessVerdict.self, from: readiness.body)
        #expect(verdict.failed == ["postgresql"])
        #expect(verdict.backends["redis"] == "ok")

        proxy.blackHole(false)
        #expect(try await Self.ready(base).failed == [])
        let retried = try await Self.send(
            base, "POST", "/v1/trips", token: rider, body: LoopbackRideTests.request, key: key)
        #expect(retried.status == 201)
        #expect(try await Self.send(base, "GET", "/v1/trips/active", token: rider).status == 200)
        await loopback.stop()
    }

    /// A cancel that cannot reach PostgreSQL changes nothing and says so: 503, `Retry-After`, the error's JSON body;
    /// sent again under its key once the path heals, it cancels.
    @Test func cancelWithPostgresBlackHoledIsA503WithRetryAfterAndTheTripStaysAsItWas() async throws {
        let environment = ProcessInfo.processInfo.environment
        let postgresURL = try #require(environment["HAIL_POSTGRES_URL"], "run `eval \"$(bash scripts/services.sh)\"`")
        let redisURL = try #require(environment["HAIL_REDIS_URL"])
        var components = try #require(URLComponents(string: postgresURL))
        let proxy = try BlackHoleProxy(targetPort: try #require(components.port))
        defer { proxy.stop() }
        components.port = proxy.port
        let proxied = try #require(components.string)
        let loopback = try await Self.serve(postgresURL: proxied, schemaURL: postgresURL, redisURL: redisURL)
        let base = loopback.base
        let rider = loopback.token(.rider, "rider-1")
        #expect(try await Self.ready(base).failed == [])
        let requested = try await Self.send(
            base, "POST", "/v1/trips", token: rider, body: LoopbackRideTests.request, key: UUID().uuidString)
        #expect(requested.status == 201, "\(String(decoding: requested.body, as: UTF8.self))")
        let trip = try HailJSON.decode(Trip.self, from: requested.body)

        proxy.blackHole(true)
        let key = UUID().uuidString
        let cancelled = try await Self.send(
            base, "POST", "/v1/trips/\(trip.id)/cancel", token: rider, body: "{}", key: key)
        #expect(cancelled.status == 503)
        #expect(cancelled.retryAfter == "2")
        #expect(try HailJSON.decode(ErrorBody.self, from: cancelled.body).error.code == .unavailable)

        proxy.blackHole(false)
        #expect(try await Self.ready(base).failed == [])
        let read = try await Self.send(base, "GET", "/v1/trips/\(trip.id)", token: rider)
        #expect(try HailJSON.decode(Trip.self, from: read.body).state == .searching)
        let retried = try await Self.send(
            base, "POST", "/v1/trips/\(trip.id)/cancel", token: rider, body: "{}", key: key)
        #expect(retried.status == 200)
        #expect(try HailJSON.decode(Trip.self, from: retried.body).state == .cancelled)
        await loopback.stop()
    }
}
