import Foundation
import HailServer
import HailTime

/// What one node runs on, chosen by `hail server --postgres URL --redis URL`: PostgreSQL for trips and
/// history when a URL is given (the SQLite file otherwise), Redis for the geo index and the bus when a URL
/// is given (in-process otherwise), so the embedded default is unchanged when neither is.
public struct ScaledBackends: Sendable {
    /// Trips, audit log and idempotency records.
    public let trips: any TripStore
    /// Location history.
    public let history: any LocationHistoryStore
    /// Trip and driver streams.
    public let bus: any TripBus
    /// Where drivers are.
    public let geo: any GeoIndex
    /// Live dispatch offers, so a driver may answer on any node.
    public let offers: any OfferStore
    /// Drivers' seq, filter, status, position and trip, so a driver may reconnect to any node.
    public let ingestState: any DriverIngestStore
    /// The one-round-trip write of a batch, with Redis; nil when the stores are in-process.
    public let ingestPipeline: (any DriverIngestPipeline)?
    /// Which node runs each trip's search, so a dead node's searches are adopted by another.
    public let searchLeases: any SearchLeases
    /// The shared clock the node's is watched against (`hail_clock_offset_seconds`): Redis's, else PostgreSQL's.
    public let clockReference: (any ClockReference)?
    /// A one-line summary for the startup banner, without credentials.
    public let summary: String
    /// Backends reached in a way an attacker on the network could use (`BackendExposure`), one line each, for the
    /// node to print at start.
    public let warnings: [String]
    /// The readiness checks of `GET /readyz`: PostgreSQL `SELECT 1` or a SQLite read, and Redis `PING`.
    public let probes: [BackendProbe]
    private let closers: [@Sendable () -> Void]

    /// Opens the backends: `postgresURL` (a libpq URI) or else SQLite at `databasePath`, and `redisURL`
    /// (`redis://host:port/db`, `rediss://` over TLS, see `RedisEndpoint.init(url:)`) or else the in-process bus,
    /// grid index, offers and ingest state; `prefix` goes before every Redis key and channel (tests isolate with
    /// it). `backendTimeout`, when given, is how
    /// long a caller waits for PostgreSQL and for Redis (unless the Redis URL sets `timeout`); the other waits
    /// are `postgresTimeouts`' and the URLs' (see docs/DEPLOY.md, "Timeouts").
    public static func open(
        postgresURL: String?, redisURL: String?, databasePath: String, postgresSchema: String = "public",
        redisPrefix: String = "", backendTimeout: Duration? = nil,
        postgresTimeouts: PostgresTimeouts = PostgresTimeouts()
    ) async throws -> ScaledBackends {
        // A malformed URL is refused before anything is opened or created.
        var endpoint = try redisURL.map(RedisEndpoint.init(url:))
        if let backendTimeout, let url = redisURL, !url.contains("timeout=") { endpoint?.timeout = backendTimeout }
        let warnings = BackendExposure.warnings(
            redis: endpoint, postgresKeywords: try postgresURL.map(PostgresConnection.keywords(of:)),
            environment: ProcessInfo.processInfo.environment)
        var postgresTimeouts = postgresTimeouts
        if let backendTimeout { postgresTimeouts.deadline = backendTimeout }
        var closers: [@Sendable () -> Void] = []
        var parts: [String] = []
        var probes: [BackendProbe] = []
        let trips: any TripStore
        let history: any LocationHistoryStore
        var clockReference: (any ClockReference)?
        if let postgresURL {
            let stores = try await PostgresTripStores.open(
                url: postgresURL, schema: postgresSchema, timeouts: postgresTimeouts)
            closers.append { stores.close() }
            (trips, history) = (stores.trips, stores.history)
            clockReference = PostgresClockReference(pool: stores.pool)
            parts.append("PostgreSQL")
            probes.append(BackendProbe(name: "postgresql") { try await stores.pool.run { try $0.execute("SELECT 1") } })
        } else {
            let stores = try await SQLiteTripStores.open(path: databasePath)
            (trips, history) = (stores.trips, stores.history)
            parts.append("SQLite \(databasePath)")
            probes.append(BackendProbe(name: "sqlite") { _ = try await stores.trips.record(id: "readyz") })
        }
        let bus: any TripBus
        let geo: any GeoIndex
        let offers: any OfferStore
        let ingestState: any DriverIngestStore
        let searchLeases: any SearchLeases
        var ingestPipeline: RedisIngestPipeline?
        if let endpoint {
            let client = RedisClient(endpoint: endpoint)
            // Fail at start, not on the first driver's position, when Redis is not there.
            do { try await client.ping() } catch {
                client.close()
                closers.forEach { $0() }
                throw error
            }
            let redisBus = try RedisTripBus(endpoint: endpoint, prefix: redisPrefix)
            let pipeline = RedisIngestPipeline(
                endpoint: endpoint, ingestPrefix: redisPrefix + "hail:ingest", geoPrefix: redisPrefix + "hail:drivers",
                busPrefix: redisPrefix)
            ingestPipeline = pipeline
            closers.append {
                pipeline.close()
                redisBus.close()
                client.close()
            }
            (bus, geo) = (redisBus, RedisGeoIndex(client: client, prefix: redisPrefix + "hail:drivers"))
            offers = RedisOfferStore(
                client: client, prefix: redisPrefix + "hail:offers", leasesPrefix: redisPrefix + "hail:searches")
            ingestState = RedisDriverIngestStore(client: client, prefix: redisPrefix + "hail:ingest")
            searchLeases = RedisSearchLeases(client: client, prefix: redisPrefix + "hail:searches")
            clockReference = RedisClockReference(client: client)
            parts.append("Redis \(endpoint.summary)")
            probes.append(BackendProbe(name: "redis") { try await client.ping() })
        } else {
            (bus, geo) = (InProcessTripBus(), MemoryGeoIndex())
            let leases = MemorySearchLeases()
            (offers, ingestState, searchLeases) = (MemoryOfferStore(leases: leases), MemoryDriverIngestStore(), leases)
            parts.append("in-process bus and geo index")
        }
        return ScaledBackends(
            trips: trips, history: history, bus: bus, geo: geo, offers: offers, ingestState: ingestState,
            ingestPipeline: ingestPipeline, searchLeases: searchLeases, clockReference: clockReference,
            summary: parts.joined(separator: ", "), warnings: warnings, probes: probes, closers: closers)
    }

    /// The server's services on these backends.
    public func services(configuration: ServerConfiguration, tokens: TokenAuthority, time: Timeline) async throws
        -> ServerServices
    {
        let metrics = ServerMetrics()
        (bus as? RedisTripBus)?.reportFailures(to: metrics.registry)
        (ingestPipeline as? RedisIngestPipeline)?.reportStatistics(to: metrics.registry)
        return try await ServerServices.make(
            configuration: configuration, tokens: tokens, time: time, metrics: metrics, trips: trips, history: history,
            bus: bus, geo: geo, offers: offers, ingestState: ingestState, ingestPipeline: ingestPipeline,
            searchLeases: searchLeases, clockReference: clockReference, probes: probes)
    }

    /// Closes the connections (the SQLite file closes with its last store).
    public func close() { closers.forEach { $0() } }
}
