import Foundation
import HailCore
import HailNet
import HailProtocol
import HailScale
import HailServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Real servers on loopback over one database, for races: the embedded shape is one server on a SQLite file;
/// the scaled shape is two nodes, each with its own connections to the shared PostgreSQL schema and Redis prefix
/// (`scripts/services.sh`), as two `hail server --postgres --redis` processes would be. Requests cross real
/// sockets; the nodes' services are at hand to read the database and to set up what HTTP cannot.
struct TripCluster {
    /// One server and the services behind it.
    struct Node {
        let services: ServerServices
        let server: BackendServer
        var base: String { "http://127.0.0.1:\(server.port)" }
    }

    let nodes: [Node]
    /// Mints the access tokens (JWTs of the nodes' key set), as a deployment's identity provider would.
    let minter: JWTMinter
    /// The live offers every node reads (one store for the embedded server, Redis for the scaled nodes).
    let offers: any OfferStore
    private let session: URLSession
    private let closeBackends: @Sendable () async -> Void
    private let databasePath: String?

    static let tripRequest = Data(
        #"{"pickup": {"lat": 43.7396, "lng": 7.4276}, "dropoff": {"lat": 43.7314, "lng": 7.4197}, "productID": "economy"}"#
            .utf8)

    static func start(_ backend: Backend) async throws -> TripCluster {
        var options = BackendServer.Options()
        options.port = 0
        options.secret = SecureRandom.bytes(32)
        // Access tokens are JWTs, as on every scaled node (which refuses to start without a key set).
        let (keys, minter) = try LoopbackServer.keySet()
        options.tokenKeys = keys
        let tokens = options.tokenAuthority
        options.log = nil
        // Enough connections that fifty requests really are in flight at once.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        let session = URLSession(configuration: configuration)
        switch backend {
        case .embedded:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent(
                "hail-race-\(UUID().uuidString).db"
            ).path
            let stores = try await SQLiteTripStores.open(path: path)
            let offers = MemoryOfferStore()
            let services = try await ServerServices.make(
                configuration: options.configuration, tokens: tokens, time: .system(), trips: stores.trips,
                history: stores.history, offers: offers)
            let server = try await BackendServer.start(services: services, options: options)
            return TripCluster(
                nodes: [Node(services: services, server: server)], minter: minter, offers: offers, session: session,
                closeBackends: {}, databasePath: path)
        case .scaled:
            guard let redisURL = ProcessInfo.processInfo.environment["HAIL_REDIS_URL"] else {
                throw LoopbackError(description: "HAIL_REDIS_URL is not set")
            }
            return try await scaled(
                redisURLs: [redisURL, redisURL], options: options, minter: minter, session: session)
        }
    }

    /// Scaled nodes on one fresh PostgreSQL schema, node i reaching Redis at `redisURLs[i]` (one Redis, maybe through
    /// a proxy of the test's own for some nodes), all on one key prefix.
    static func scaled(redisURLs: [String]) async throws -> TripCluster {
        var options = BackendServer.Options()
        options.port = 0
        options.secret = SecureRandom.bytes(32)
        let (keys, minter) = try LoopbackServer.keySet()
        options.tokenKeys = keys
        options.log = nil
        return try await scaled(
            redisURLs: redisURLs, options: options, minter: minter, session: URLSession(configuration: .ephemeral))
    }

    private static func scaled(
        redisURLs: [String], options: BackendServer.Options, minter: JWTMinter, session: URLSession
    ) async throws -> TripCluster {
        guard let postgresURL = ProcessInfo.processInfo.environment["HAIL_POSTGRES_URL"] else {
            throw LoopbackError(description: "HAIL_POSTGRES_URL is not set")
        }
        let schema = "hail_contract_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        var opened: [ScaledBackends] = []
        var nodes: [Node] = []
        let closeAll: @Sendable ([ScaledBackends]) async -> Void = { opened in
            for backends in opened.dropFirst() { backends.close() }
            if let first = opened.first {
                await ScaledTestBackends(backends: first, postgresURL: postgresURL, schema: schema).close()
            }
        }
        do {
            // Each node opens its own connections on the one schema and prefix, as `hail server` processes would.
            for redisURL in redisURLs {
                let backends = try await ScaledBackends.open(
                    postgresURL: postgresURL, redisURL: redisURL, databasePath: "/nonexistent/unused.db",
                    postgresSchema: schema, redisPrefix: schema + ":", backendTimeout: testBackendTimeout)
                opened.append(backends)
                let services = try await backends.services(
                    configuration: options.configuration, tokens: options.tokenAuthority, time: .system())
                nodes.append(
                    Node(
                        services: services, server: try await BackendServer.start(services: services, options: options))
                )
            }
        } catch {
            for node in nodes { await node.server.shutdown() }
            await closeAll(opened)
            throw error
        }
        let all = opened
        return TripCluster(
            nodes: nodes, minter: minter, offers: all[all.count - 1].offers, session: session,
            closeBackends: { await closeAll(all) }, databasePath: nil)
    }

    func stop() async {
        for node in nodes { await node.server.shutdown() }
        await closeBackends()
        session.finishTasksAndInvalidate()
        if let databasePath {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
        }
    }

    /// The node a request numbered `index` goes to: requests are spread over the nodes in turn.
    func node(_ index: Int) -> Node { nodes[index % nodes.count] }

    /// The database, read through the first node (every node reads the same one).
    var trips: any TripStore { nodes[0].services.trips }

    func token(_ role: Role, _ subject: String) -> String {
        minter.mint(role: role, subject: subject, now: Date())
    }

    /// One request over a real socket to node `index`; a transport failure is status 0.
    func call(
        _ index: Int, _ method: String, _ path: String, token: String, body: Data = Data(), key: String? = nil
    ) async -> APIResponse {
        var request = URLRequest(url: URL(string: node(index).base + path)!)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let key { request.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
        if !body.isEmpty {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        guard let (data, response) = try? await session.data(for: request), let http = response as? HTTPURLResponse
        else { return APIResponse(status: 0) }
        return APIResponse(status: http.statusCode, body: data)
    }

    /// A rider's new trip, requested through node 0.
    func requestTrip(rider: String) async throws -> Trip {
        let response = await call(
            0, "POST", "/v1/trips", token: token(.rider, rider), body: Self.tripRequest, key: UUID().uuidString)
        guard response.status == 201 else {
            throw LoopbackError(description: "trip request answered \(response.status): \(response.text)")
        }
        return try HailJSON.decode(Trip.self, from: response.body)
    }

    /// Offers `tripID` to `driverID` in the shared offer store, as a dispatching node does.
    func offer(_ tripID: String, to driverID: String) async throws {
        let offer = DispatchMachine.Offer(tripID: tripID, driverID: driverID, expiresAt: Date().addingTimeInterval(60))
        guard try await offers.place(offer, now: Date()) else {
            throw LoopbackError(description: "driver \(driverID) already holds an offer")
        }
    }

    /// The driver accepts `tripID` through node `index`.
    func accept(_ tripID: String, driver: String, via index: Int = 0) async -> APIResponse {
        await call(index, "POST", "/v1/trips/\(tripID)/accept", token: token(.driver, driver), key: UUID().uuidString)
    }

    /// The driver reports `event` on `tripID` through node `index`.
    func event(_ event: TripEventKind, _ tripID: String, driver: String, via index: Int = 0) async -> APIResponse {
        let body = try! HailJSON.encode(TripEventRequest(event: event, idempotencyKey: UUID().uuidString))
        return await call(index, "POST", "/v1/trips/\(tripID)/events", token: token(.driver, driver), body: body)
    }

    /// The rider cancels `tripID` through node `index`.
    func cancel(_ tripID: String, rider: String, via index: Int = 0) async -> APIResponse {
        await call(
            index, "POST", "/v1/trips/\(tripID)/cancel", token: token(.rider, rider), body: Data("{}".utf8),
            key: UUID().uuidString)
    }

    /// A trip offered to and accepted by `driver`, then taken to `state` (`driverAssigned`, `driverArrived` or
    /// `onTrip`) by the driver's events.
    func trip(rider: String, driver: String, at state: TripState) async throws -> Trip {
        let trip = try await requestTrip(rider: rider)
        try await offer(trip.id, to: driver)
        var steps: [(String, APIResponse)] = [("accept", await accept(trip.id, driver: driver))]
        if state == .driverArrived || state == .onTrip {
            steps.append(("arrived", await event(.arrived, trip.id, driver: driver)))
        }
        if state == .onTrip { steps.append(("started", await event(.started, trip.id, driver: driver))) }
        for (step, response) in steps where response.status != 200 {
            throw LoopbackError(description: "\(step) answered \(response.status): \(response.text)")
        }
        guard let record = try await trips.record(id: trip.id) else {
            throw LoopbackError(description: "trip \(trip.id) is gone")
        }
        return record.trip
    }

    /// The trip's audit trail is legal: versions 1...n with no gap, from `searching`, every step an allowed
    /// transition. Returns the states in order.
    func auditedStates(_ tripID: String) async throws -> [TripState] {
        let events = try await trips.events(tripID: tripID)
        guard events.map(\.version) == Array(1...max(events.count, 1)), events.first?.state == .searching else {
            throw LoopbackError(description: "trip \(tripID) has an audit trail with a gap: \(events)")
        }
        for (before, after) in zip(events, events.dropFirst())
        where before.state != after.state && !TripTransitions.isAllowed(from: before.state, to: after.state) {
            throw LoopbackError(description: "trip \(tripID) went \(before.state) -> \(after.state)")
        }
        return events.map(\.state)
    }
}

extension APIResponse {
    /// The body as text, for failure messages.
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The error body's error, nil when the body is not one.
    var apiError: APIError? { try? HailJSON.decode(ErrorBody.self, from: body).error }
}
