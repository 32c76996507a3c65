import Foundation
import HailCore
import HailProtocol
import HailScale
import HailServer
import HailTesting
import HailTime

/// One stateless node of the scaled deployment in this process: its own services and clock, on the shared
/// PostgreSQL schema and Redis key prefix, called through `HailAPI` as HTTP would.
struct ScaleNode {
    static let epoch = Date(timeIntervalSince1970: 1_796_220_000)
    static let secret = Array("scale-test-secret-of-thirty-two-bytes".utf8)

    let stores: PostgresTripStores
    let redis: RedisClient
    let bus: RedisTripBus
    let pipeline: RedisIngestPipeline
    let services: ServerServices
    let api: HailAPI
    let tokens = TokenAuthority(authenticator: HMACAuthenticator(secret: secret))
    let clock = ManualClock()
    /// Where this node's driver ingest state is kept in Redis.
    let ingestPrefix: String

    /// A node whose clock reads `clockOffset` seconds after `epoch` at the start (a node whose clock is off).
    init(postgresURL: String, schema: String, redisURL: String, prefix: String, clockOffset: TimeInterval = 0)
        async throws
    {
        let endpoint = try RedisEndpoint(url: redisURL)
        ingestPrefix = prefix + "ingest"
        stores = try await PostgresTripStores.open(url: postgresURL, schema: schema, connections: 2)
        redis = RedisClient(endpoint: endpoint)
        bus = try RedisTripBus(endpoint: endpoint, prefix: prefix)
        pipeline = RedisIngestPipeline(
            endpoint: endpoint, ingestPrefix: prefix + "ingest", geoPrefix: prefix + "drivers", busPrefix: prefix)
        services = try await ServerServices.make(
            configuration: ServerConfiguration(), tokens: tokens,
            time: Timeline(clock: clock, origin: Self.epoch + clockOffset), trips: stores.trips,
            history: stores.history,
            bus: bus, geo: RedisGeoIndex(client: redis, prefix: prefix + "drivers"),
            offers: RedisOfferStore(client: redis, prefix: prefix + "offers", leasesPrefix: prefix + "searches"),
            ingestState: RedisDriverIngestStore(client: redis, prefix: prefix + "ingest"), ingestPipeline: pipeline,
            searchLeases: RedisSearchLeases(client: redis, prefix: prefix + "searches"))
        pipeline.reportStatistics(to: services.metrics.registry)
        api = HailAPI(services: services)
    }

    func close() {
        pipeline.close()
        bus.close()
        redis.close()
        stores.close()
    }

    func token(_ role: Role, _ subject: String) -> String {
        let now = Int64(services.time.now().timeIntervalSince1970)
        return tokens.mint(AccessToken(role: role, sub: subject, exp: now + 3600, iat: now, trip: nil))
    }

    @discardableResult
    func call(_ method: String, _ target: String, token: String, body: Data = Data(), key: String? = nil) async
        -> APIResponse
    {
        var headers = ["Authorization": "Bearer \(token)"]
        if let key { headers["Idempotency-Key"] = key }
        return await api.handle(APIRequest(method: method, target: target, headers: headers, body: body))
    }

    func online(driver id: String, at coordinate: Coordinate) async throws {
        let token = self.token(.driver, id)
        await call("POST", "/v1/drivers/me/status", token: token, body: Data(#"{"online": true}"#.utf8))
        try await send(driver: id, seq: 1, at: coordinate)
    }

    /// One batch of one fix taken `t` (the node's now by default); the API's answer.
    @discardableResult
    func send(driver id: String, seq: Int64, at coordinate: Coordinate, t: Date? = nil) async throws -> APIResponse {
        let point = LocationPoint(
            lat: coordinate.lat, lng: coordinate.lng, accuracy: 5, heading: 90, speed: 8, t: t ?? services.time.now())
        let batch = try HailJSON.encode(LocationBatch(seq: seq, points: [point], backlog: false))
        return await call("POST", "/v1/drivers/me/locations", token: token(.driver, id), body: batch)
    }
}

/// A batch handed to `Fleet.ingestNow` as a driver's stream hands it, and what became of it.
struct StreamedBatch {
    /// What `ingestNow` answered at once.
    let outcome: Fleet.LoopIngest?
    private let commits: AsyncStream<Bool>

    /// Takes the batch on the calling thread, as the network loop does.
    init(fleet: Fleet, driver id: String, seq: Int64, at coordinate: Coordinate, t: Date) {
        let point = LocationPoint(lat: coordinate.lat, lng: coordinate.lng, accuracy: 5, heading: 90, speed: 8, t: t)
        let (commits, continuation) = AsyncStream.makeStream(of: Bool.self)
        self.commits = commits
        outcome = fleet.ingestNow(
            driverID: id, batch: LocationBatch(seq: seq, points: [point], backlog: false), client: nil
        ) { result in
            if case .success = result { continuation.yield(true) } else { continuation.yield(false) }
            continuation.finish()
        }
    }

    /// True when the outcome was `.writing`.
    var isWriting: Bool {
        if case .writing? = outcome { return true }
        return false
    }

    /// Whether the batch may be acknowledged (true) or failed (false): once `.writing` completes.
    func committed() async -> Bool {
        for await committed in commits { return committed }
        return false
    }
}
