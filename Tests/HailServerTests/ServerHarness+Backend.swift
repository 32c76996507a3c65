import Foundation
import HailNet
import HailScale
import HailServer
import Testing

/// The backends the server contract suite runs on: one suite, each test once per backend, same results.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// SQLite file, in-process bus and geo index, offers and ingest state in memory.
    case embedded
    /// PostgreSQL and Redis (`scripts/services.sh`), in a fresh schema and key prefix per test.
    case scaled

    var testDescription: String { rawValue }
}

/// The scaled backends for one test: a fresh PostgreSQL schema and Redis key prefix, so tests running at
/// once never see each other's trips or drivers. Without `HAIL_POSTGRES_URL` and `HAIL_REDIS_URL` it
/// throws, and the scaled case fails: `make test` always starts them, so a silent pass would hide a gap.
struct ScaledTestBackends: Sendable {
    let backends: ScaledBackends
    let postgresURL: String
    let schema: String

    static func open() async throws -> ScaledTestBackends {
        let environment = ProcessInfo.processInfo.environment
        guard let postgresURL = environment["HAIL_POSTGRES_URL"], let redisURL = environment["HAIL_REDIS_URL"] else {
            throw LoopbackError(
                description: """
                    the scaled backend needs PostgreSQL and Redis: run `eval "$(bash scripts/services.sh)"` \
                    (sets HAIL_POSTGRES_URL and HAIL_REDIS_URL), or `make test`
                    """)
        }
        let name = "hail_contract_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let backends = try await ScaledBackends.open(
            postgresURL: postgresURL, redisURL: redisURL, databasePath: "/nonexistent/unused.db", postgresSchema: name,
            redisPrefix: name + ":", backendTimeout: testBackendTimeout)
        return ScaledTestBackends(backends: backends, postgresURL: postgresURL, schema: name)
    }

    /// Closes the connections and drops the schema (Redis keys lapse by themselves or stay under the prefix).
    func close() async {
        backends.close()
        guard let pool = try? await PostgresPool.connect(url: postgresURL, size: 1, migrations: []) else { return }
        let schema = self.schema
        _ = try? await pool.run { connection in try connection.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        pool.close()
    }
}

/// How long the suite's scaled servers wait for PostgreSQL and Redis: `make test` runs many servers at once on two
/// cores, where a healthy backend can take seconds to get a turn, and these tests are about answers, not speed. The
/// tests of the deadlines themselves (`BackendDeadlineTests`) set theirs.
let testBackendTimeout: Duration = .seconds(20)

extension ServerHarness {
    /// A loopback harness (see `loopback(databasePath:)`) on `backend`; call `closeBackends()` when done.
    static func loopback(databasePath: String, backend: Backend) async throws -> (ServerHarness, BackendServer) {
        guard backend == .scaled else { return try await loopback(databasePath: databasePath) }
        let scaled = try await ScaledTestBackends.open()
        let stores = scaled.backends
        var harness = await ServerHarness(
            trips: stores.trips, history: stores.history,
            authenticator: HMACAuthenticator(secret: SecureRandom.bytes(32)), bus: stores.bus, geo: stores.geo,
            offers: stores.offers, ingestState: stores.ingestState, searchLeases: stores.searchLeases,
            minter: try Self.identityProvider())
        harness.closeBackends = { await scaled.close() }
        var options = BackendServer.Options()
        options.port = 0
        options.log = nil
        let server = try await BackendServer.start(services: harness.services, options: options)
        harness.baseURL = "http://127.0.0.1:\(server.port)"
        return (harness, server)
    }
}

extension LoopbackServer {
    /// The real server on loopback on `backend`, with the real clock; `stop()` closes it all.
    static func start(backend: Backend) async throws -> LoopbackServer {
        guard backend == .scaled else { return try await start() }
        let scaled = try await ScaledTestBackends.open()
        var options = BackendServer.Options()
        options.port = 0
        options.secret = SecureRandom.bytes(32)
        options.log = nil
        let (keys, minter) = try LoopbackServer.keySet()
        options.tokenKeys = keys
        let tokens = options.tokenAuthority
        let services = try await scaled.backends.services(
            configuration: options.configuration, tokens: tokens, time: .system())
        let server = try await BackendServer.start(services: services, options: options)
        var loopback = LoopbackServer(
            server: server, databasePath: "/nonexistent/unused.db", tokens: tokens, client: try WebSocketClient(),
            minter: minter)
        loopback.closeBackends = { await scaled.close() }
        return loopback
    }
}
