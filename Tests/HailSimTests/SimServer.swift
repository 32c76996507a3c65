import Foundation
import HailNet
import HailServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real backend on loopback with a throwaway SQLite file and HMAC tokens, on the live clock.
struct SimServer {
    let server: BackendServer
    let databasePath: String
    let tokens: TokenAuthority

    static func start(roads: RoadNetworkSetting = .none, demo: DemoConsole? = nil) async throws -> SimServer {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-sim-\(UUID()).db").path
        var options = BackendServer.Options()
        options.port = 0
        options.databasePath = path
        options.secret = SecureRandom.bytes(32)
        options.log = nil
        options.configuration.roads = roads
        options.configuration.demo = demo
        // Every simulated app comes from loopback: only the per-token (per-app) limits apply.
        options.configuration.rateLimits.requestsPerAddress = nil
        options.configuration.rateLimits.connectionsPerAddress = nil
        let server = try await BackendServer.start(options)
        return SimServer(
            server: server, databasePath: path,
            tokens: TokenAuthority(authenticator: HMACAuthenticator(secret: options.secret)))
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

    /// Mints tokens valid for an hour from now.
    var minter: @Sendable (Role, String) -> String {
        let tokens = tokens
        return { role, subject in
            let now = Int64(Date().timeIntervalSince1970)
            return tokens.mint(AccessToken(role: role, sub: subject, exp: now + 3600, iat: now))
        }
    }

    /// A GET with the token in the query, as the fleet page sends it.
    func get(_ path: String, token: String) async throws -> (status: Int, body: Data) {
        let separator = path.contains("?") ? "&" : "?"
        let url = URL(string: "\(baseURL.absoluteString)\(path)\(separator)access_token=\(token)")!
        let (data, response) = try await URLSession.shared.data(from: url)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    func stop() async {
        await server.shutdown()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
    }
}
