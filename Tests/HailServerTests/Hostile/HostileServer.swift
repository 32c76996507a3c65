import Foundation
import HailCore
import HailNet
import HailProtocol
import HailServer
import HailTesting
import HailTime
import Synchronization

/// The real server on loopback for attacks: HailNet, a SQLite file (or PostgreSQL and Redis for the scaled
/// backend), HMAC tokens, and the services' manual clock (so token expiry and rate-limit refills are
/// exact); limits are set per test, loopback included.
struct HostileServer {
    let clock: ManualClock
    let services: ServerServices
    let server: BackendServer
    let tokens: TokenAuthority
    let databasePath: String
    let client: WebSocketClient
    let closeBackends: @Sendable () async -> Void

    /// Starts a server on `backend` whose configuration is the default with no rate limits, changed by
    /// `configure`.
    static func start(
        backend: Backend = .embedded, _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> HostileServer {
        var configuration = ServerConfiguration()
        configuration.rateLimits = .off
        configuration.rateLimits.limitLoopback = true
        configure(&configuration)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-hostile-\(UUID().uuidString).db")
            .path
        let tokens = TokenAuthority(authenticator: HMACAuthenticator(secret: SecureRandom.bytes(32)))
        let clock = ManualClock()
        let time = Timeline(clock: clock, origin: ServerHarness.epoch)
        let counter = Mutex(0)
        let newTripID: @Sendable () -> String = {
            counter.withLock {
                $0 += 1
                return "trip-\($0)"
            }
        }
        let services: ServerServices
        let closeBackends: @Sendable () async -> Void
        switch backend {
        case .embedded:
            let stores = try await SQLiteTripStores.open(path: path)
            services = try await ServerServices.make(
                configuration: configuration, tokens: tokens, time: time, trips: stores.trips, history: stores.history,
                random: SplitMix64(seed: 9), newTripID: newTripID)
            closeBackends = {}
        case .scaled:
            let scaled = try await ScaledTestBackends.open()
            let stores = scaled.backends
            services = try await ServerServices.make(
                configuration: configuration, tokens: tokens, time: time, trips: stores.trips, history: stores.history,
                bus: stores.bus, geo: stores.geo, offers: stores.offers, ingestState: stores.ingestState,
                searchLeases: stores.searchLeases, random: SplitMix64(seed: 9), newTripID: newTripID)
            closeBackends = { await scaled.close() }
        }
        var options = BackendServer.Options()
        options.port = 0
        options.log = nil
        options.configuration = configuration
        let server = try await BackendServer.start(services: services, options: options)
        return HostileServer(
            clock: clock, services: services, server: server, tokens: tokens, databasePath: path,
            client: try WebSocketClient(), closeBackends: closeBackends)
    }

    private init(
        clock: ManualClock, services: ServerServices, server: BackendServer, tokens: TokenAuthority,
        databasePath: String, client: WebSocketClient, closeBackends: @escaping @Sendable () async -> Void
    ) {
        self.services = services
        self.server = server
        self.tokens = tokens
        self.databasePath = databasePath
        self.client = client
        self.clock = clock
        self.closeBackends = closeBackends
    }

    func stop() async {
        await client.shutdown()
        await server.shutdown()
        await closeBackends()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
    }

    var port: Int { server.port }
    var now: Date { services.time.now() }

    func advance(seconds: Double) { clock.advance(by: .milliseconds(Int64(seconds * 1000))) }

    func token(_ role: Role, _ subject: String, trip: String? = nil, ttl: TimeInterval = 3600) -> String {
        let now = Int64(self.now.timeIntervalSince1970)
        return tokens.mint(AccessToken(role: role, sub: subject, exp: now + Int64(ttl), iat: now, trip: trip))
    }

    /// One request through URLSession; a transport failure is status 0.
    @discardableResult
    func call(
        _ method: String, _ target: String, token: String? = nil, json: String? = nil, body: Data? = nil,
        key: String? = nil, headers: [String: String] = [:]
    ) async -> APIResponse {
        var all = headers
        if let token { all["Authorization"] = "Bearer \(token)" }
        if let key { all["Idempotency-Key"] = key }
        return await ServerHarness.overTheWire(
            "http://127.0.0.1:\(port)", method, target, headers: all, body: body ?? Data((json ?? "").utf8))
    }

    /// A WebSocket through HailNet's client, `access_token` in the query.
    func socket(_ path: String, token: String) async throws -> TestSocket {
        let separator = path.contains("?") ? "&" : "?"
        return TestSocket(
            try await client.connect(to: "ws://127.0.0.1:\(port)\(path)\(separator)access_token=\(token)"))
    }

    func error(_ response: APIResponse) -> APIError? {
        try? HailJSON.decode(ErrorBody.self, from: response.body).error
    }

    /// A driver online with one fix at `coordinate` (seq 1).
    func onlineDriver(_ id: String, at coordinate: Coordinate) async throws {
        let token = self.token(.driver, id)
        let status = await call("POST", "/v1/drivers/me/status", token: token, json: #"{"online": true}"#)
        guard status.status == 200 else { throw LoopbackError(description: "status answered \(status.status)") }
        let ack = await sendLocation(id, seq: 1, at: coordinate)
        guard ack.status == 200 else { throw LoopbackError(description: "location answered \(ack.status)") }
    }

    @discardableResult
    func sendLocation(_ driverID: String, seq: Int64, at coordinate: Coordinate, t: Date? = nil) async -> APIResponse {
        let point = LocationPoint(
            lat: coordinate.lat, lng: coordinate.lng, accuracy: 5, heading: 90, speed: 8, t: t ?? now)
        let body = try! HailJSON.encode(LocationBatch(seq: seq, points: [point]))
        return await call("POST", "/v1/drivers/me/locations", token: token(.driver, driverID), body: body)
    }

    /// A trip requested by `rider` and accepted by the online driver `driver` (offered first, being the only one).
    func assignedTrip(rider: String, driver: String) async throws -> Trip {
        let created = await call(
            "POST", "/v1/trips", token: token(.rider, rider), json: ServerHarness.requestBody(),
            key: UUID().uuidString)
        let trip = try HailJSON.decode(Trip.self, from: created.body)
        let accepted = try await eventually {
            let answer = await call(
                "POST", "/v1/trips/\(trip.id)/accept", token: token(.driver, driver), key: UUID().uuidString)
            return answer.status == 200 ? answer : nil
        }
        return try HailJSON.decode(Trip.self, from: accepted.body)
    }

    /// Polls `probe` until it returns a value, failing after `seconds` (a deadline, not a pace: each try
    /// waits on the server's answer, never on a timer).
    func eventually<T>(within seconds: Double = 10, _ probe: () async throws -> T?) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if let value = try await probe() { return value }
            // Paced by a round trip to the server, not by a timer.
            _ = await call("GET", "/healthz")
        }
        throw LoopbackError(description: "the condition did not hold within \(seconds) s")
    }
}
