import Foundation
import HailCore
import HailNet
import HailProtocol
import HailThreads
import HailTime

/// The backend as one process: HailNet's HTTP and WebSocket server in front of the API and the live
/// streams, the embedded SQLite stores behind them, and dispatch running on its clock.
public final class BackendServer: Sendable {
    /// How to run.
    public struct Options: Sendable {
        /// Address to listen on.
        public var host = "127.0.0.1"
        /// Port (0 picks a free one; `port` tells which).
        public var port = 8080
        /// The SQLite file.
        public var databasePath = "hail.db"
        /// The token secret: it signs share links, and every role's `hail1` tokens when there is no key set.
        public var secret: [UInt8] = []
        /// The public keys access tokens (JWTs) are verified with; nil accepts the secret's `hail1` tokens for every
        /// role (the embedded demo).
        public var tokenKeys: TokenKeyRing?
        /// What a JWT's issuer, audience and dates must be.
        public var tokenRules = TokenRules(issuer: TokenRules.defaultIssuer, audience: TokenRules.defaultAudience)
        /// API settings.
        public var configuration = ServerConfiguration()
        /// Event loops serving connections; nil for one per core.
        public var loops: Int?
        /// Whether loops are pinned to cores (`NetServerConfiguration.pinsLoops`); nil for HailNet's default (pinned).
        public var pinsLoops: Bool?
        /// How long a busy loop gathers ready sockets before polling again; nil for HailNet's default (0.5 ms).
        public var ioCoalescing: Duration?
        /// Where request log lines go (one JSON object per line); nil for none. By default standard error, written
        /// by a thread of its own: a request's loop never waits for a slow reader of the log.
        public var log: (@Sendable (String) -> Void)? = { line in LineWriter.standardError.write(line) }

        /// The defaults: port 8080, `hail.db` in the working directory.
        public init() {}

        /// The token authority these options describe.
        public var tokenAuthority: TokenAuthority {
            let authenticator = HMACAuthenticator(secret: secret)
            guard let tokenKeys else { return TokenAuthority(authenticator: authenticator) }
            return TokenAuthority(authenticator: authenticator, keys: tokenKeys, rules: tokenRules)
        }
    }

    /// The shared services (stores, fleet, dispatch...).
    public let services: ServerServices
    let net: NetServer
    /// The live streams, for a drain: which driver each stream is and which trips' positions arrive.
    let live: LiveStreams
    private let dispatchTask: Task<Void, Never>

    /// Opens the database, resumes what was in flight, and starts listening.
    public static func start(_ options: Options, time: Timeline = .system()) async throws -> BackendServer {
        let stores = try await SQLiteTripStores.open(path: options.databasePath)
        let services = try await ServerServices.make(
            configuration: options.configuration,
            tokens: options.tokenAuthority, time: time, trips: stores.trips, history: stores.history,
            probes: [BackendProbe(name: "sqlite") { _ = try await stores.trips.record(id: "readyz") }])
        return try await start(services: services, options: options)
    }

    /// Serves services built elsewhere (tests give theirs a manual clock); `options` supplies the address.
    public static func start(services: ServerServices, options: Options) async throws -> BackendServer {
        try await services.resume()
        return try BackendServer(services: services, options: options)
    }

    private init(services: ServerServices, options: Options) throws {
        self.services = services
        let api = HailAPI(services: services)
        let streams = LiveStreams(services: services)
        live = streams
        var netConfiguration = NetServerConfiguration()
        netConfiguration.host = options.host
        netConfiguration.port = options.port
        netConfiguration.maxRequestBodyBytes = options.configuration.maxBodyBytes
        netConfiguration.maxInboundMessageBytes = services.configuration.maxMessageBytes
        netConfiguration.requestTimeoutSeconds = services.configuration.requestTimeoutSeconds
        netConfiguration.customHeaderNames += ["x-hail-client"]
        if let loops = options.loops { netConfiguration.loopCount = loops }
        if let coalescing = options.ioCoalescing { netConfiguration.ioCoalescing = coalescing }
        if let pinsLoops = options.pinsLoops { netConfiguration.pinsLoops = pinsLoops }
        let log = options.log
        let time = services.time
        let metrics = services.metrics
        // Asked first for every request and upgrade, before any parsing, storage or token work of the API.
        let gate = RateLimitGate(
            limits: services.configuration.rateLimits, tokens: services.tokens, metrics: services.metrics)
        net = NetServer(
            configuration: netConfiguration,
            respond: HTTPFront(api: api, gate: gate, metrics: metrics, time: time, log: log).respond,
            webSocket: { request in
                let target = Self.target(path: request.path, query: request.query)
                let headers = Dictionary(
                    request.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
                let forwardedFor = request.headers["x-forwarded-for"]
                if let refusal = gate.admitConnection(
                    peer: request.remoteAddress, forwardedFor: forwardedFor,
                    token: Self.token(request.headers, request.query, path: request.path), now: time.now())
                {
                    log?(
                        Self.logLine(
                            APIRequest(method: "GET", target: request.path, remoteAddress: request.remoteAddress),
                            route: "webSocket", status: 429, elapsed: .zero, now: time.now(),
                            address: gate.client(peer: request.remoteAddress, forwardedFor: forwardedFor).address))
                    return .reject(code: WebSocketCloseCode.rateLimited.rawValue, reason: refusal.message)
                }
                do throws(APIError) {
                    let plan: LiveStreams.Plan
                    do throws(APIError) {
                        plan = try await streams.plan(method: "GET", target: target, headers: headers)
                    } catch {
                        gate.connectionEnded(peer: request.remoteAddress, forwardedFor: forwardedFor)
                        throw error
                    }
                    let bucket = gate.messageBucket(
                        peer: request.remoteAddress, forwardedFor: forwardedFor, now: time.now())
                    let ended: @Sendable () -> Void = {
                        gate.connectionEnded(peer: request.remoteAddress, forwardedFor: forwardedFor)
                    }
                    // Both streams are read on their loop: a batch is ingested and acknowledged in the receive
                    // callback, and the bus writes a trip's messages straight to its watchers' sockets.
                    switch plan {
                    case .driver(let driverID, let client):
                        return .handle { connection in
                            streams.driverHandler(
                                driverID: driverID, client: client, on: connection, bucket: bucket,
                                refused: { gate.count($0) }, ended: ended)
                        }
                    case .trip(let tripID, let principal, let resume, let client):
                        return .handle { connection in
                            streams.tripHandler(
                                tripID: tripID, principal: principal, resume: resume, client: client, on: connection,
                                bucket: bucket, refused: { gate.count($0) }, ended: ended)
                        }
                    case .fleet(let client):
                        return .handle { connection in
                            streams.fleetHandler(
                                client: client, on: connection, bucket: bucket, refused: { gate.count($0) },
                                ended: ended)
                        }
                    }
                } catch {
                    log?(
                        Self.logLine(
                            APIRequest(method: "GET", target: request.path), route: "webSocket",
                            status: error.httpStatus, elapsed: .zero, now: time.now()))
                    return .reject(code: error.closeCode.rawValue, reason: LiveStreams.reason(error.message))
                }
            })
        let netMetrics = net.metrics
        metrics.loopConnections { netMetrics.snapshot().connectionsPerLoop }
        _ = try net.start()
        let (dispatcher, reconciler) = (services.dispatcher, services.reconciler)
        let clockMonitor = services.clockMonitor
        // Dispatch, the reconciler and the clock's watch run side by side, and stop together.
        dispatchTask = Task {
            await withDiscardingTaskGroup { group in
                if let clockMonitor { group.addTask { await clockMonitor.run() } }
                group.addTask { await dispatcher.run() }
                group.addTask { await reconciler.run() }
            }
        }
    }

    /// The port actually listened on.
    public var port: Int { net.port }

    /// The socket layer's counters (connections, drops, slow-consumer closes), for tests and operators.
    public var netMetrics: NetMetrics.Snapshot { net.metrics.snapshot() }

    /// The raw bearer token of a request or upgrade, for the per-token limits.
    static func token(_ headers: HTTPHeaders, _ query: [QueryItem], path: String) -> String? {
        RateLimitGate.token(
            authorization: headers["authorization"],
            accessToken: query.first { $0.name == HailHeader.accessTokenQueryParameter }?.value, path: path)
    }

    /// Serves until `shutdown()` or until the calling task is cancelled.
    public func run() async throws {
        try await withTaskCancellationHandler {
            try await net.run()
        } onCancel: {
            dispatchTask.cancel()
        }
        dispatchTask.cancel()
    }

    /// Closes every connection (WebSockets with 4012, "reconnect now" to another node) and stops dispatch and the
    /// reconciler.
    public func shutdown() async {
        dispatchTask.cancel()
        let code = WebSocketCloseCode.moveNow
        await net.shutdown(code: code.rawValue, reason: code.reason)
    }

    /// The request target again from HailNet's decoded path and query (see `HTTPFront.target`).
    static func target(path: String, query: [QueryItem]) -> String { HTTPFront.target(path: path, query: query) }

    /// The request's path as the log writes it: without the query (an `access_token` travels there) and with a
    /// share link's token replaced, so no credential reaches a log file.
    static func loggedPath(_ target: String) -> String {
        let path = target.prefix { $0 != "?" }
        let share = "/share/"
        guard path.hasPrefix(share), path.count > share.count else { return String(path) }
        return share + "[token]"
    }

    /// One structured log line: what was asked, by whom (never the token), the answer and how long it took.
    /// `remote` is the peer (a proxy's address behind one), `address` the client's as the rate limits see it (the
    /// proxy's `X-Forwarded-For` when the peer is a trusted proxy).
    static func logLine(
        _ request: APIRequest, route: String, status: Int, elapsed: Duration, now: Date, address: String? = nil
    ) -> String {
        var fields: [String: String] = [
            "at": (try? WireDate.format(now)) ?? "", "requestId": request.requestID, "method": request.method,
            "path": loggedPath(request.target), "route": route, "status": String(status),
            "ms": String(
                format: "%.2f", elapsed.timeInterval * 1000),
            "remote": request.remoteAddress,
        ]
        if let client = request.header(HailHeader.client) { fields["client"] = String(client.prefix(120)) }
        if let address { fields["address"] = address }
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
