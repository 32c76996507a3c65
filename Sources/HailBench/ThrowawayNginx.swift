import Foundation
import HailProcess

/// An nginx a benchmark starts for itself (Debian `nginx`) on a free loopback port: its configuration, pid file,
/// error log and temporary directories live in a directory of its own, so it needs no root, touches nothing of a
/// system nginx, and is gone after `stop`. `NginxReference` and `RestartFront` are two configurations of it.
final class ThrowawayNginx: Sendable {
    /// The port it listens on (127.0.0.1).
    let port: Int
    /// The nginx executable it runs.
    let executable: String
    private let master: ChildProcess
    private let directory: URL

    private init(port: Int, executable: String, master: ChildProcess, directory: URL) {
        self.port = port
        self.executable = executable
        self.master = master
        self.directory = directory
    }

    /// The master's pid (its workers are its children).
    var pid: Int32 { master.pid }

    /// Its error log so far.
    func errorLog() -> String {
        (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
    }

    /// Where clients connect.
    var endpoint: HTTPEndpoint { HTTPEndpoint(address: "127.0.0.1", port: port, authority: "127.0.0.1:\(port)") }

    /// Starts nginx with `configuration(port, directory)` and waits until `probePath` answers 200. `role` names it
    /// in errors ("the reference nginx"); `missing` is the error when nginx is not installed.
    static func start(
        role: String, missing: String, directoryPrefix: String, probePath: String,
        configuration: (_ port: Int, _ directory: String) -> String
    ) async throws(BenchError) -> ThrowawayNginx {
        guard
            let nginx = ExternalCommand.find("nginx")
                ?? ["/usr/sbin/nginx", "/usr/local/sbin/nginx"].first(
                    where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { throw BenchError(missing) }
        guard let port = try? ServerChild.freeLoopbackPort() else {
            throw BenchError("no free loopback port for \(role)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(directoryPrefix)-\(UUID().uuidString)", isDirectory: true)
        let configFile = directory.appendingPathComponent("nginx.conf")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(configuration(port, directory.path).utf8).write(to: configFile)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw BenchError("cannot write \(role)'s configuration in \(directory.path): \(error)")
        }
        let master: ChildProcess
        do {
            // -e: the error log before the configuration is read, which would otherwise be /var/log/nginx's.
            master = try ChildProcess.start(
                nginx,
                [
                    "-p", directory.path, "-e", directory.appendingPathComponent("error.log").path, "-c",
                    configFile.path,
                ])
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw BenchError("cannot start nginx: \(error)")
        }
        ChildProcesses.started(master.pid)
        let started = ThrowawayNginx(port: port, executable: nginx, master: master, directory: directory)
        for _ in 0..<100 {
            if await EdgeProbe.status(of: "GET", probePath, on: started.endpoint) == 200 { return started }
            if !master.isRunning { break }
            try? await Task.sleep(for: .milliseconds(50))
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        await started.stop()
        throw BenchError("\(role) did not answer on port \(port) within 5 s: \(log.suffix(400))")
    }

    /// Stops nginx (SIGTERM to the master, which stops its workers) and removes its directory.
    func stop() async {
        _ = await master.stop()
        ChildProcesses.stopped(master.pid)
        try? FileManager.default.removeItem(at: directory)
    }
}
