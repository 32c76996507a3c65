import Foundation
import HailProcess
import Synchronization

/// A PostgreSQL server of a test's own on a free loopback port that accepts TLS connections only (`hostssl`, no
/// `host` line in pg_hba.conf), with scram-sha-256 password authentication, on the test's certificates; it never
/// touches the shared PostgreSQL. As root it runs as the `postgres` user (PostgreSQL refuses root).
public final class PrivateTLSPostgres: Sendable {
    /// The port.
    public let port: Int
    /// The `postgres` superuser's password.
    public let password: String
    /// The certificates it serves.
    public let certificates: TestCertificates
    private let directory: String
    private let process = Mutex<ChildProcess?>(nil)

    /// A server on `certificates` whose `postgres` user has `password`.
    public init(certificates: TestCertificates, password: String) throws {
        port = try ServerChild.freeLoopbackPort()
        self.password = password
        self.certificates = certificates
        directory = try TemporaryDirectory.make("hail-postgres-tls")
    }

    /// `postgresql://postgres:<password>@<host>:<port>/postgres` followed by `query` (e.g. `?sslmode=verify-full`).
    public func url(host: String = "localhost", password: String? = nil, query: String = "") -> String {
        "postgresql://postgres:\(password ?? self.password)@\(host):\(port)/postgres\(query)"
    }

    /// Initialises the cluster, starts the server and waits (at most 20 s) until it accepts connections.
    public func start() async throws {
        let binaries = try Self.binaries()
        let data = directory + "/data"
        let asRoot = getuid() == 0
        try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: directory + "/password"))
        // The server's key must belong to the server's user and be readable by it alone.
        for name in ["server.pem", "server.key"] {
            try FileManager.default.copyItem(
                atPath: certificates.directory + "/" + name, toPath: directory + "/" + name)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory + "/server.key")
        if asRoot {
            _ = try await CommandOutput.run("/bin/chown", ["-R", "postgres:postgres", directory])
        }
        let prefix = asRoot ? ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"] : []
        let initdb =
            prefix + [
                binaries + "/initdb", "-D", data, "-U", "postgres", "--auth=scram-sha-256",
                "--pwfile=\(directory)/password", "--encoding=UTF8", "--no-instructions", "--no-sync",
            ]
        _ = try await CommandOutput.run(initdb[0], Array(initdb.dropFirst()))
        let hba = "hostssl all all 127.0.0.1/32 scram-sha-256\nhostssl all all ::1/128 scram-sha-256\n"
        try Data(hba.utf8).write(to: URL(fileURLWithPath: data + "/pg_hba.conf"))
        let log = directory + "/postgres.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        if asRoot { _ = try await CommandOutput.run("/bin/chown", ["-R", "postgres:postgres", directory]) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        let server =
            prefix + [
                binaries + "/postgres", "-D", data, "-p", String(port), "-c", "listen_addresses=127.0.0.1",
                "-c", "unix_socket_directories=\(directory)", "-c", "fsync=off", "-c", "ssl=on",
                "-c", "ssl_cert_file=\(directory)/server.pem", "-c", "ssl_key_file=\(directory)/server.key",
            ]
        let child = try ChildProcess.start(
            server[0], Array(server.dropFirst()), standardOutput: output.fileDescriptor,
            standardError: output.fileDescriptor)
        try output.close()
        process.withLock { $0 = child }
        try await LogWait.until(
            log, contains: "database system is ready to accept connections", or: child, what: "postgres")
    }

    /// Stops the server (a fast shutdown) and deletes its directory.
    public func stop() {
        if let child = process.withLock({ $0 }), child.isRunning {
            child.send(SIGINT)
            _ = child.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The newest PostgreSQL server binaries installed (Debian keeps them outside PATH).
    private static func binaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        for version in versions.compactMap(Int.init).sorted(by: >) {
            let bin = "\(root)/\(version)/bin"
            if FileManager.default.isExecutableFile(atPath: bin + "/postgres") { return bin }
        }
        throw HarnessError(description: "no PostgreSQL server under \(root): run scripts/services.sh")
    }
}
