import Foundation
import HailCore
import HailNet
import HailProtocol
import HailServer
import HailTesting
import HailTime
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A keyed checksum standing in for HMAC in unit tests only; the integration tests use the real HMAC.
struct TestAuthenticator: MessageAuthenticator {
    var key: [UInt8] = Array("unit-test-secret".utf8)

    func code(for message: [UInt8]) -> [UInt8] {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key + message { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return withUnsafeBytes(of: hash.bigEndian) { Array($0) }
    }

    func matches(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool { lhs == rhs }
}

/// The server's services in one process on a manual clock, called through `HailAPI` like HTTP would.
struct ServerHarness {
    static let epoch = Date(timeIntervalSince1970: 1_796_220_000)  // 2026-12-02T12:40:00Z
    let clock = ManualClock()
    let services: ServerServices
    let api: HailAPI
    let tokens: TokenAuthority
    /// Signs rider, driver and operator tokens as JWTs of the key set the server verifies, as an identity provider
    /// does; nil for the secret's `hail1` tokens. Share tokens are the server's `hail1` either way.
    let minter: JWTMinter?
    /// Set when requests go over real sockets to a `BackendServer` on loopback instead of straight to `api`.
    var baseURL: String?
    /// Closes backends opened for this harness (the scaled ones: connections, the test's schema).
    var closeBackends: @Sendable () async -> Void = {}

    static let pickup = Coordinate(lat: 43.7396, lng: 7.4276)
    static let dropoff = Coordinate(lat: 43.7314, lng: 7.4197)

    init(
        trips: any TripStore = MemoryTripStore(), history: any LocationHistoryStore = MemoryLocationHistoryStore(),
        authenticator: any MessageAuthenticator = TestAuthenticator(), bus: any TripBus = InProcessTripBus(),
        geo: any GeoIndex = MemoryGeoIndex(), offers: any OfferStore = MemoryOfferStore(),
        ingestState: any DriverIngestStore = MemoryDriverIngestStore(), searchLeases: (any SearchLeases)? = nil,
        configuration: ServerConfiguration = ServerConfiguration(), minter: JWTMinter? = nil
    ) async {
        self.minter = minter
        if let minter, let key = try? minter.publicKey.verificationKey() {
            tokens = TokenAuthority(
                authenticator: authenticator,
                keys: TokenKeyRing(keys: [minter.keyID: TokenKey(id: minter.keyID, key: key)]),
                rules: TokenRules(issuer: minter.issuer, audience: minter.audience))
        } else {
            tokens = TokenAuthority(authenticator: authenticator)
        }
        let counter = Mutex(0)
        // One scope of stores is all a test gives the harness; a mix is the test's own mistake.
        services = try! await ServerServices.make(
            configuration: configuration, tokens: tokens,
            time: Timeline(clock: clock, origin: Self.epoch), trips: trips, history: history, bus: bus, geo: geo,
            offers: offers, ingestState: ingestState, searchLeases: searchLeases, random: SplitMix64(seed: 7),
            newTripID: {
                counter.withLock {
                    $0 += 1
                    return "trip-\($0)"
                }
            })
        api = HailAPI(services: services)
    }

    var now: Date { services.time.now() }

    func token(_ role: Role, _ subject: String, trip: String? = nil, ttl: TimeInterval = 3600) -> String {
        let now = Int64(self.now.timeIntervalSince1970)
        let claims = AccessToken(role: role, sub: subject, exp: now + Int64(ttl), iat: now, trip: trip)
        if let minter, role != .share { return minter.mint(claims) }
        return tokens.mint(claims)
    }

    @discardableResult
    func call(
        _ method: String, _ target: String, token: String? = nil, json: String? = nil, body: Data? = nil,
        key: String? = nil, headers: [String: String] = [:]
    ) async -> APIResponse {
        var all = headers
        if let token { all["Authorization"] = "Bearer \(token)" }
        if let key { all["Idempotency-Key"] = key }
        let bytes = body ?? Data((json ?? "").utf8)
        if let baseURL { return await Self.overTheWire(baseURL, method, target, headers: all, body: bytes) }
        return await api.handle(APIRequest(method: method, target: target, headers: all, body: bytes))
    }

    /// The same request through URLSession to the real server; transport failures become status 0.
    static func overTheWire(_ base: String, _ method: String, _ target: String, headers: [String: String], body: Data)
        async -> APIResponse
    {
        var request = URLRequest(url: URL(string: base + target)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if !body.isEmpty { request.httpBody = body }
        guard let (data, response) = try? await URLSession.shared.data(for: request),
            let http = response as? HTTPURLResponse
        else { return APIResponse(status: 0) }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String {
                fields[name.lowercased() == "content-type" ? "Content-Type" : name] = value
            }
        }
        return APIResponse(status: http.statusCode, headers: fields, body: data)
    }

    /// An identity provider's minter on a new ES256 key.
    static func identityProvider() throws -> JWTMinter {
        JWTMinter(
            key: try SigningKey.generate(.es256), issuer: TokenRules.defaultIssuer, audience: TokenRules.defaultAudience
        )
    }

    /// A harness whose requests cross real sockets: `BackendServer` on 127.0.0.1 in front of these same
    /// services (manual clock included), JWT access tokens of a key set and the secret's share links, SQLite
    /// file at `databasePath`.
    static func loopback(databasePath: String) async throws -> (ServerHarness, BackendServer) {
        let stores = try await SQLiteTripStores.open(path: databasePath)
        var harness = await ServerHarness(
            trips: stores.trips, history: stores.history,
            authenticator: HMACAuthenticator(secret: SecureRandom.bytes(32)), minter: try Self.identityProvider())
        var options = BackendServer.Options()
        options.port = 0
        options.log = nil
        let server = try await BackendServer.start(services: harness.services, options: options)
        harness.baseURL = "http://127.0.0.1:\(server.port)"
        return (harness, server)
    }

    func advance(seconds: Double) { clock.advance(by: .milliseconds(Int64(seconds * 1000))) }

    /// A driver online at `coordinate` with one fresh position.
    func onlineDriver(_ id: String, at coordinate: Coordinate, seq: Int64 = 1) async {
        let token = self.token(.driver, id)
        await call("POST", "/v1/drivers/me/status", token: token, json: #"{"online": true}"#)
        await sendLocation(id, seq: seq, at: coordinate)
    }

    @discardableResult
    func sendLocation(_ driverID: String, seq: Int64, at coordinate: Coordinate, backlog: Bool = false, t: Date? = nil)
        async -> APIResponse
    {
        let point = LocationPoint(
            lat: coordinate.lat, lng: coordinate.lng, accuracy: 5, heading: 90, speed: 8, t: t ?? now)
        let body = try! HailJSON.encode(LocationBatch(seq: seq, points: [point], backlog: backlog))
        return await call("POST", "/v1/drivers/me/locations", token: token(.driver, driverID), body: body)
    }

    static func requestBody(productID: String = "economy") -> String {
        #"{"pickup": {"lat": 43.7396, "lng": 7.4276}, "dropoff": {"lat": 43.7314, "lng": 7.4197}, "productID": "\#(productID)"}"#
    }

    func trip(from response: APIResponse) throws -> Trip { try HailJSON.decode(Trip.self, from: response.body) }

    func error(from response: APIResponse) -> APIError? {
        try? HailJSON.decode(ErrorBody.self, from: response.body).error
    }
}

/// Reads the frames published on a bus topic.
struct TopicReader {
    let subscription: BusSubscription
    var iterator: AsyncStream<BusMessage>.AsyncIterator

    init(_ bus: any TripBus, _ topic: BusTopic) async {
        subscription = await bus.subscribe(to: topic)
        iterator = subscription.messages.makeAsyncIterator()
    }

    /// The next message's `type`, or nil once the stream has ended.
    mutating func nextType() async -> (type: String, message: BusMessage)? {
        guard let message = await iterator.next() else { return nil }
        let object = try? JSONSerialization.jsonObject(with: Data(message.text.utf8)) as? [String: Any]
        return ((object?["type"] as? String) ?? "?", message)
    }
}
