import Foundation
import HailProcess
import Synchronization

/// A `redis-server` of a test's own that speaks TLS only, on a free loopback port, with a password on the
/// `default` user (`requirepass`) and ACL users of the test's choosing; it never touches the shared Redis.
public final class PrivateTLSRedis: Sendable {
    /// The TLS port (there is no plain one).
    public let port: Int
    /// The certificates it serves and trusts.
    public let certificates: TestCertificates
    /// The `default` user's password: the administrator's, for the test's own `redis-cli`.
    public let adminPassword: String
    private let directory: String
    private let arguments: [String]
    private let process = Mutex<ChildProcess?>(nil)

    /// A server on `certificates` whose ACL users are `users` (each `[name, "on", ">password", rules...]`);
    /// `clientCertificates` is redis's `tls-auth-clients` (`no`, `optional`: checked when presented, `yes`).
    public init(
        certificates: TestCertificates, adminPassword: String, users: [[String]],
        clientCertificates: String = "optional"
    ) throws {
        port = try ServerChild.freeLoopbackPort()
        self.certificates = certificates
        self.adminPassword = adminPassword
        directory = try TemporaryDirectory.make("hail-redis-tls")
        arguments =
            [
                "--port", "0", "--tls-port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--dir", directory, "--tls-cert-file", certificates.serverCertificateFile, "--tls-key-file",
                certificates.serverKeyFile, "--tls-ca-cert-file", certificates.caFile, "--tls-auth-clients",
                clientCertificates, "--requirepass", adminPassword, "--loglevel", "notice",
            ] + users.flatMap { ["--user"] + $0 }
    }

    /// Starts the server and waits (at most 20 s) for its "Ready to accept connections" line.
    public func start() async throws {
        let log = directory + "/redis.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        let child = try ChildProcess.start(
            "/usr/bin/redis-server", arguments, standardOutput: output.fileDescriptor,
            standardError: output.fileDescriptor)
        try output.close()
        process.withLock { $0 = child }
        try await LogWait.until(log, contains: "Ready to accept connections", or: child, what: "redis-server")
    }

    /// Runs `redis-cli` as the administrator over TLS with `command`, returning its standard output.
    public func administer(_ command: [String]) async throws -> String {
        try await CommandOutput.run(
            "/usr/bin/redis-cli",
            [
                "--tls", "--cacert", certificates.caFile, "-h", "localhost", "-p", String(port), "--user", "default",
                "--pass", adminPassword, "--no-auth-warning",
            ] + command)
    }

    /// SIGSTOP: Redis keeps every connection open and answers nothing (its kernel still acknowledges).
    public func pause() { process.withLock { $0 }?.send(SIGSTOP) }

    /// SIGCONT: Redis answers again.
    public func resume() { process.withLock { $0 }?.send(SIGCONT) }

    /// Stops the server and deletes its directory.
    public func stop() {
        if let child = process.withLock({ $0 }), child.isRunning {
            child.send(SIGKILL)
            _ = child.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
