import Foundation
import HailCore
import HailProcess
import HailProtocol
import HailServer
import HailTesting

/// The two shapes the crash loop kills, as docs/DEPLOY.md describes them.
enum CrashLoopMode: String, Sendable {
    /// One `hail server` on a SQLite file; the clients talk to it directly.
    case embedded
    /// Several `hail server --postgres --redis` nodes behind a load balancer; one node at a time is killed.
    case scaled
}

/// The PostgreSQL and Redis that `scripts/services.sh` starts (`HAIL_POSTGRES_URL`, `HAIL_REDIS_URL`).
struct CrashLoopServices: Sendable {
    let postgresURL: String
    let redisURL: String

    /// Both URLs from the environment, or nil: the scaled crash loop is then skipped.
    static let fromEnvironment: CrashLoopServices? = {
        let environment = ProcessInfo.processInfo.environment
        guard let postgres = environment["HAIL_POSTGRES_URL"], let redis = environment["HAIL_REDIS_URL"] else {
            return nil
        }
        return CrashLoopServices(postgresURL: postgres, redisURL: redis)
    }()
}

/// The servers of one crash loop run: where the clients connect, which nodes the killer may kill, and where
/// the durable log is read at the end.
final class CrashLoopDeployment: Sendable {
    let mode: CrashLoopMode
    let nodes: [CrashLoopServer]
    /// In front of the nodes in scaled mode; nil in embedded mode.
    let balancer: CrashLoopBalancer?
    let secretPath: String
    /// The key set scaled nodes verify access tokens with (`--jwks`); nil in embedded mode.
    let key: DeploymentKey?
    private let storage: Storage

    private enum Storage {
        case sqlite(path: String)
        case postgres(url: String, schema: String)
    }

    private init(
        mode: CrashLoopMode, nodes: [CrashLoopServer], balancer: CrashLoopBalancer?, secretPath: String,
        key: DeploymentKey?, storage: Storage
    ) {
        self.mode = mode
        self.nodes = nodes
        self.balancer = balancer
        self.secretPath = secretPath
        self.key = key
        self.storage = storage
    }

    /// One server on `folder/hail.db`.
    static func embedded(folder: URL) throws -> CrashLoopDeployment {
        let database = folder.appendingPathComponent("hail.db").path
        let secretPath = folder.appendingPathComponent("hail.secret").path
        let server = try CrashLoopServer(storageArguments: ["--db", database], secretPath: secretPath)
        return CrashLoopDeployment(
            mode: .embedded, nodes: [server], balancer: nil, secretPath: secretPath, key: nil,
            storage: .sqlite(path: database))
    }

    /// `nodeCount` nodes sharing one secret, one key set, one fresh PostgreSQL schema and one fresh Redis prefix,
    /// behind a balancer.
    static func scaled(folder: URL, services: CrashLoopServices, nodeCount: Int) throws -> CrashLoopDeployment {
        let schema = "hail_crash_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let secretPath = folder.appendingPathComponent("hail.secret").path
        // Scaled nodes never create the secret (a node without its volume would refuse the others' share links):
        // the deployment provisions it, as an operator does.
        _ = try ServerSecret.loadOrCreate(at: secretPath)
        // Their access tokens are JWTs of the deployment's key set: a scaled node refuses to start without one.
        let key = try DeploymentKey.create(in: folder.path)
        // --db is never opened with --postgres; a path that cannot exist makes sure of it.
        let arguments = [
            "--postgres", services.postgresURL, "--redis", services.redisURL, "--postgres-schema", schema,
            "--redis-prefix", schema + ":", "--db", "/nonexistent/unused.db", "--jwks", key.jwksPath,
        ]
        let nodes = try (0..<nodeCount).map { _ in
            try CrashLoopServer(storageArguments: arguments, secretPath: secretPath)
        }
        return CrashLoopDeployment(
            mode: .scaled, nodes: nodes, balancer: try CrashLoopBalancer(backends: nodes.map(\.port)),
            secretPath: secretPath, key: key, storage: .postgres(url: services.postgresURL, schema: schema))
    }

    /// An access token every node accepts: a JWT of the key set when scaled, the secret's `hail1` when embedded
    /// (the secret made now if the server has not yet made it).
    func token(_ role: Role, _ subject: String, now: Date, lifetime: TimeInterval = 3600) throws -> String {
        if let key { return key.token(role, subject, now: now, lifetime: lifetime) }
        let secret = try ServerSecret.loadOrCreate(at: secretPath).secret
        return TokenSigner.secret(TokenAuthority(authenticator: HMACAuthenticator(secret: secret)))
            .mint(role: role, subject: subject, now: now, lifetime: lifetime)
    }

    /// Where the apps connect: the balancer, or the one server.
    var baseURL: URL { balancer?.baseURL ?? nodes[0].baseURL }

    /// SIGKILLs by the killer, over all nodes.
    var kills: Int { nodes.map(\.kills).reduce(0, +) }

    /// Starts every node that is not running (all of them at first; after the killer stops, any whose
    /// restart it was interrupted before).
    func startStoppedNodes() async throws {
        for node in nodes where !node.isRunning { try await node.start() }
    }

    /// Kills every node without counting it as one of the loop's kills, and stops the balancer: the end
    /// of the run, or a test that stops early.
    func shutdown() {
        for node in nodes { node.kill(counted: false) }
        balancer?.stop()
    }

    /// The durable log, read after `shutdown()`.
    func readLog() async throws -> ServerLog {
        switch storage {
        case .sqlite(let path): return try await ServerLog.read(database: path)
        case .postgres(let url, let schema): return try ServerLog.read(postgresURL: url, schema: schema)
        }
    }

    /// Drops the run's PostgreSQL schema (its Redis keys stay under their own prefix, as other tests' do).
    func removeStorage() {
        guard case .postgres(let url, let schema) = storage else { return }
        _ = try? Psql.rows(url: url, "DROP SCHEMA IF EXISTS \(schema) CASCADE")
    }

    /// One line for the summary: how the balancer spread connections over the nodes.
    var spread: String {
        guard let balancer else { return "" }
        let counts = balancer.counts
        let perNode = nodes.enumerated().map { "node \($0.offset + 1) \(counts.forwarded[$0.element.port] ?? 0)" }
        return "; connections through the balancer: \(perNode.joined(separator: ", ")), "
            + "\(counts.refused) with no node up; kills per node \(nodes.map(\.kills))"
    }
}

extension ServerLog {
    /// The trips and audit log in the run's PostgreSQL schema. The test target does not link HailScale, so
    /// it asks `psql`, as an operator checking the database would.
    static func read(postgresURL: String, schema: String) throws -> ServerLog {
        var trips: [String: Trip] = [:]
        // Hex, because PostgreSQL's base64 breaks lines and a record could hold a tab.
        for row in try Psql.rows(url: postgresURL, "SELECT id, encode(record, 'hex') FROM \(schema).trips") {
            guard row.count == 2, let bytes = Data(hex: row[1]) else {
                throw HarnessError(description: "psql: unreadable trips row \(row)")
            }
            trips[row[0]] = try HailJSON.decode(TripRecord.self, from: bytes).trip
        }
        var events: [String: [TripEventRecord]] = [:]
        let lines = try Psql.rows(
            url: postgresURL,
            "SELECT trip_id, version, intent, actor, state, at FROM \(schema).trip_events ORDER BY trip_id, version")
        for row in lines {
            guard row.count == 6, let version = Int(row[1]), let state = TripState(rawValue: row[4]),
                let at = Double(row[5])
            else { throw HarnessError(description: "psql: unreadable trip_events row \(row)") }
            events[row[0], default: []].append(
                TripEventRecord(
                    tripID: row[0], version: version, intent: row[2], actor: row[3], state: state,
                    at: Date(timeIntervalSince1970: at)))
        }
        return ServerLog(trips: trips, events: events)
    }
}

/// `psql` as a child process: unaligned, tuples only, tab-separated.
enum Psql {
    /// The first `psql` on PATH, or in Debian's versioned server directories.
    static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let versioned = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .sorted().reversed().map { "/usr/lib/postgresql/\($0)/bin" }
        return (path.split(separator: ":").map(String.init) + versioned).map { $0 + "/psql" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// The rows `sql` returns, each split into its columns.
    static func rows(url: String, _ sql: String) throws -> [[String]] {
        guard let executable else {
            throw HarnessError(description: "psql is not installed (apt-get install postgresql-client)")
        }
        let output = Pipe()
        let errors = Pipe()
        let process = try ChildProcess.start(
            executable, ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-F", "\t", "-d", url, "-c", sql],
            standardOutput: output.fileHandleForWriting.fileDescriptor,
            standardError: errors.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        try errors.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let problem = errors.fileHandleForReading.readDataToEndOfFile()
        guard process.waitUntilExit() == .exited(0) else {
            throw HarnessError(description: "psql failed: \(String(decoding: problem, as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
    }
}

extension Data {
    /// Bytes from lowercase or uppercase hex digits; nil for an odd count or another character.
    init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(bytes)
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
