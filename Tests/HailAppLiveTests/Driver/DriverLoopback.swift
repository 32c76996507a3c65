import Foundation
import HailClient
import HailCore
import HailDriver
import HailNet
import HailNetTransport
import HailProtocol
import HailServer
import HailTesting
import HailTime
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real backend on loopback, on the test's manual clock, with a SQLite file and HMAC tokens.
struct DriverLoopback {
    let server: BackendServer
    let databasePath: String
    let tokens: TokenAuthority
    let origin: Date

    static func start(clock: ManualClock, origin: Date) async throws -> DriverLoopback {
        try await start(time: Timeline(clock: clock, origin: origin), origin: origin)
    }

    static func start(time: Timeline, origin: Date) async throws -> DriverLoopback {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("hail-driver-\(UUID().uuidString).db").path
        var options = BackendServer.Options()
        options.port = 0
        options.databasePath = path
        options.secret = SecureRandom.bytes(32)
        options.log = nil
        let server = try await BackendServer.start(options, time: time)
        return DriverLoopback(
            server: server, databasePath: path,
            tokens: TokenAuthority(authenticator: HMACAuthenticator(secret: options.secret)), origin: origin)
    }

    func stop() async {
        await server.shutdown()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

    func token(_ role: Role, _ subject: String) -> String {
        let now = Int64(origin.timeIntervalSince1970)
        return tokens.mint(AccessToken(role: role, sub: subject, exp: now + 36_000, iat: now))
    }

    /// The driver's live transports against this server.
    func driverTransports(token: String, connector: SocketConnector) -> (DriverHTTPAPI, DriverLiveChannel) {
        (
            DriverHTTPAPI(
                transport: HTTPTransport(baseURL: baseURL, token: token, timeout: 5, exchange: NetHTTPExchange())),
            DriverLiveChannel(connector: connector, server: baseURL, token: token)
        )
    }

    /// A plain HTTP call, as the scripted rider makes them.
    func http(_ method: String, _ path: String, token: String, body: String? = nil, key: UUID? = nil)
        async throws -> (status: Int, body: Data)
    {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let key { request.setValue(key.uuidString.lowercased(), forHTTPHeaderField: "Idempotency-Key") }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// The rider requests a trip and gets it back.
    func requestTrip(rider: String, pickup: Coordinate, dropoff: Coordinate) async throws -> Trip {
        let body = """
            {"pickup": {"lat": \(pickup.lat), "lng": \(pickup.lng)}, "dropoff": {"lat": \(dropoff.lat), "lng": \(dropoff.lng)}, "productID": "economy"}
            """
        let answer = try await http("POST", "/v1/trips", token: rider, body: body, key: UUID())
        guard answer.status == 201 else {
            throw HarnessError(
                description: "request answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
        }
        return try HailJSON.decode(Trip.self, from: answer.body)
    }

    /// The trip as the rider sees it.
    func trip(_ id: String, rider: String) async throws -> Trip {
        try HailJSON.decode(Trip.self, from: try await http("GET", "/v1/trips/\(id)", token: rider).body)
    }
}

/// Waits for the model with a real-time deadline that only fires when the condition never comes true. The model
/// judges the condition at the step that met it; it may be false again by the time this task runs, and that is still
/// a pass.
@MainActor
func eventually(
    _ model: DriverModel, within seconds: Double = 30, _ what: String,
    _ condition: @escaping @MainActor @Sendable (DriverModel) -> Bool
) async throws {
    try await until(
        what, within: seconds,
        state: {
            let batcher = model.pipeline.batcher
            return
                "screen \(model.screen); in flight \(batcher.inFlight.map(\.seq)), pending \(batcher.pending.count), "
                + "buffered \(batcher.buffer.count), outbox failures \(model.outbox.entries.map(\.failedAttempts)), "
                + "problem \(model.lastProblem ?? "none")"
        }
    ) { await model.waitUntil(condition) }
}
