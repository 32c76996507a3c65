import Foundation
import HailProcess
import HailServer

/// `hail server` started as a child process of the benchmark, on 127.0.0.1 and a free port, with a fresh
/// SQLite file and secret in a temporary directory, so its CPU and memory are its own and can be read
/// from /proc while the load generator runs in this process.
public final class ServerProcess: Sendable {
    /// The child.
    public let child: ServerChild
    /// Its token secret (share links; every token of an embedded node).
    public let secretFile: String
    /// The key set a `--postgres`/`--redis` node verifies access tokens with (its `--jwks`); nil for an embedded one.
    public let key: DeploymentKey?
    /// The temporary directory (database, secret, keys, log), removed by `stop`.
    public let directory: URL

    private init(child: ServerChild, secretFile: String, key: DeploymentKey?, directory: URL) {
        self.child = child
        self.secretFile = secretFile
        self.key = key
        self.directory = directory
    }

    /// What mints tokens it accepts (`BenchTarget.remote`): the key set's private key for a scaled node, whose
    /// access tokens are JWTs, else the secret.
    public var tokenFile: String { key?.privateKeyPath ?? secretFile }

    /// The child's process id.
    public var pid: Int32 { child.pid }
    /// The port it listens on.
    public var port: Int { child.port }

    /// Starts `executable server --port 0 ... extraArguments` and waits for its "listening" line. The child
    /// inherits this process's open-file limit.
    /// A `--postgres`/`--redis` node gets a new key set (`--jwks`), or `peer`'s, so tokens minted for one are good
    /// on both, as is `peer`'s secret; `processors`, when not empty, are the only cores the child runs on (its
    /// loops pin to them in order).
    public static func start(
        executable: String = ServerChild.thisExecutable, extraArguments: [String] = [],
        peer: ServerProcess? = nil, processors: [Int] = [], timeoutSeconds: Int = 60
    ) async throws(BenchError) -> ServerProcess {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hail-bench-server-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw BenchError("cannot create a temporary directory: \(error)")
        }
        let secretFile = peer?.secretFile ?? directory.appendingPathComponent("hail.secret").path
        // Provisioned here, as an operator does: a --postgres/--redis node never creates its secret, and takes
        // access tokens only as JWTs of its key set.
        let scaled = extraArguments.contains("--postgres") || extraArguments.contains("--redis")
        var key: DeploymentKey?
        do {
            _ = try ServerSecret.loadOrCreate(at: secretFile)
            if scaled { key = try peer?.key ?? DeploymentKey.create(in: directory.path) }
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw BenchError("cannot make the server's secret or keys: \(error)")
        }
        let arguments =
            [
                "server", "--host", "127.0.0.1", "--port", "0", "--db",
                directory.appendingPathComponent("bench.db").path,
                "--secret-file", secretFile, "--quiet",
            ] + (key.map { ["--jwks", $0.jwksPath] } ?? []) + extraArguments
        ChildProcesses.stopOnInterrupt()
        do {
            let child = try await ServerChild.start(
                executable: executable, arguments: arguments,
                errorLog: directory.appendingPathComponent("server.log"), processors: processors,
                timeout: .seconds(timeoutSeconds))
            ChildProcesses.started(child.pid)
            return ServerProcess(child: child, secretFile: secretFile, key: key, directory: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw BenchError(error.description)
        }
    }

    /// The child's CPU time and memory now.
    func usage() -> ProcessUsage? { ProcessUsage.of(pid: pid) }

    /// CPU seconds so far of each of the server's event loop threads, in loop order (`hail-lws-0`, ...).
    func loopCPUSeconds() -> [Double] {
        let byName = ProcessUsage.threadCPUSeconds(pid: pid, named: "hail-lws")
        return byName.keys.sorted { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }.map { byName[$0] ?? 0 }
    }

    /// True while the child runs.
    public var isRunning: Bool { child.isRunning }

    /// Stops the child with SIGTERM (SIGKILL after 10 s) and removes its directory.
    public func stop() async {
        await child.stop()
        ChildProcesses.stopped(pid)
        try? FileManager.default.removeItem(at: directory)
    }
}
