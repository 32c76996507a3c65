import Foundation
import HailProcess

/// A throwaway nginx (Debian `nginx`) answering every request with a fixed 200 JSON body on a free loopback port:
/// the reference `hail bench edge` prints Hail's HTTP figures as ratios to.
///
/// Its configuration, pid file, error log and temporary directories live in a directory of its own, so it needs no
/// root, touches nothing of a system nginx, and is gone after `stop`.
final class NginxReference: Sendable {
    /// The port it listens on (127.0.0.1).
    var port: Int { nginx.port }
    /// `nginx -v`'s version line.
    let version: String
    private let nginx: ThrowawayNginx

    private init(version: String, nginx: ThrowawayNginx) {
        self.version = version
        self.nginx = nginx
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
        let nginx = try await ThrowawayNginx.start(
            role: "the reference nginx",
            missing: "nginx is needed as the reference (Debian: apt-get install nginx; scripts/setup.sh installs it)",
            directoryPrefix: "hail-bench-nginx", probePath: "/",
            configuration: { configuration(port: $0, directory: $1) })
        let version = await ExternalCommand.run(nginx.executable, ["-v"], includeErrors: true).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return NginxReference(version: version, nginx: nginx)
    }

    /// Stops nginx and removes its directory.
    func stop() async { await nginx.stop() }
}
