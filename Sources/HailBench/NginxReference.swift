import Foundation
import HailProcess

/// A throwaway nginx (Debian `nginx`) answering every request with a fixed 200 JSON body on a free loopback port:
/// the reference `hail bench edge` prints Hail's HTTP figures as ratios to.
///
/// Its configuration, pid file, error log and temporary directories live in a directory of its own, so it needs no
/// root, touches nothing of a system nginx, and is gone after `stop`.
final class NginxReference: Sendable {
    /// The port it listens on (127.0.0.1).
    let port: Int
    /// `nginx -v`'s version line.
    let version: String
    private let master: ChildProcess
    private let directory: URL

    private init(port: Int, version: String, master: ChildProcess, directory: URL) {
        self.port = port
        self.version = version
        self.master = master
        self.directory = directory
    }

    /// The body every request gets, the same bytes as Hail's `/healthz`.
    static let body = #"{"status":"ok"}"#

    /// The configuration: one worker per core like Hail's loops, no access log (Hail's server runs `--quiet`),
    /// and keep-alive for as many requests as a run sends (nginx's default closes after 1,000).
    static func configuration(port: Int, directory: String) -> String {
        """
        daemon off;
        master_process on;
        worker_processes auto;
        pid \(directory)/nginx.pid;
        error_log \(directory)/error.log warn;
        events { worker_connections 1024; }
        http {
            access_log off;
            client_body_temp_path \(directory)/body;
            proxy_temp_path \(directory)/proxy;
            fastcgi_temp_path \(directory)/fastcgi;
            uwsgi_temp_path \(directory)/uwsgi;
            scgi_temp_path \(directory)/scgi;
            keepalive_requests 100000000;
            keepalive_timeout 60s;
            server {
                listen 127.0.0.1:\(port);
                location / {
                    default_type application/json;
                    return 200 '\(body)';
                }
            }
        }

        """
    }

    /// Starts nginx and waits until it answers; throws saying what to install when nginx is missing.
    static func start() async throws(BenchError) -> NginxReference {
        guard
            let nginx = ExternalCommand.find("nginx")
                ?? ["/usr/sbin/nginx", "/usr/local/sbin/nginx"].first(
                    where: { FileManager.default.isExecutableFile(atPath: $0) })
        else {
            throw BenchError(
                "nginx is needed as the reference (Debian: apt-get install nginx; scripts/setup.sh installs it)")
        }
        guard let port = try? ServerChild.freeLoopbackPort() else {
            throw BenchError("no free loopback port for the reference nginx")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hail-bench-nginx-\(UUID().uuidString)", isDirectory: true)
        let configFile = directory.appendingPathComponent("nginx.conf")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(configuration(port: port, directory: directory.path).utf8).write(to: configFile)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw BenchError("cannot write the reference nginx's configuration in \(directory.path): \(error)")
        }
        let version = await ExternalCommand.run(nginx, ["-v"], includeErrors: true).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
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
        let reference = NginxReference(port: port, version: version, master: master, directory: directory)
        let endpoint = HTTPEndpoint(address: "127.0.0.1", port: port, authority: "127.0.0.1:\(port)")
        for _ in 0..<100 {
            if await EdgeProbe.status(of: "GET", "/", on: endpoint) == 200 { return reference }
            if !master.isRunning { break }
            try? await Task.sleep(for: .milliseconds(50))
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        await reference.stop()
        throw BenchError("the reference nginx did not answer on port \(port) within 5 s: \(log.suffix(400))")
    }

    /// Stops nginx (SIGTERM to the master, which stops its workers) and removes its directory.
    func stop() async {
        _ = await master.stop()
        ChildProcesses.stopped(master.pid)
        try? FileManager.default.removeItem(at: directory)
    }
}
