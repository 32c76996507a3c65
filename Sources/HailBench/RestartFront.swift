import Foundation
import HailProcess

/// A throwaway nginx in front of two `hail server` nodes, as docs/DEPLOY.md's front without TLS: round robin,
/// WebSocket upgrades, `proxy_next_upstream error` (a refused connect goes to the other node; nginx OSS has no
/// active health checks, so this passive one is what takes a drained node out; a slow connect is not counted, so a
/// node busy with a reconnect storm is never marked down), its own directory.
final class RestartFront: Sendable {
    /// The port it listens on (127.0.0.1).
    var port: Int { nginx.port }
    private let nginx: ThrowawayNginx

    private init(nginx: ThrowawayNginx) { self.nginx = nginx }

    /// How long nginx leaves a node alone after a refused connect (`fail_timeout`, with `max_fails=1`).
    static let failTimeout = Duration.seconds(2)

    /// The configuration for nodes on `upstreams` (loopback ports); `connections` sizes the worker's tables.
    static func configuration(port: Int, upstreams: [Int], connections: Int, directory: String) -> String {
        """
        daemon off;
        master_process on;
        worker_processes 1;
        worker_rlimit_nofile \(connections * 2 + 1024);
        pid \(directory)/nginx.pid;
        error_log \(directory)/error.log warn;
        events { worker_connections \(connections * 2 + 512); }
        http {
            access_log off;
            client_body_temp_path \(directory)/body;
            proxy_temp_path \(directory)/proxy;
            fastcgi_temp_path \(directory)/fastcgi;
            uwsgi_temp_path \(directory)/uwsgi;
            scgi_temp_path \(directory)/scgi;
            map $http_upgrade $connection_upgrade { default upgrade; '' ''; }
            upstream hail {
        \(upstreams.map { "        server 127.0.0.1:\($0) max_fails=1 fail_timeout=\(failTimeout.components.seconds)s;" }.joined(separator: "\n"))
                keepalive 64;
            }
            server {
                listen 127.0.0.1:\(port) backlog=4096;
                location / {
                    proxy_pass http://hail;
                    proxy_http_version 1.1;
                    proxy_set_header Upgrade $http_upgrade;
                    proxy_set_header Connection $connection_upgrade;
                    proxy_set_header X-Forwarded-For $remote_addr;
                    proxy_connect_timeout 5s;
                    proxy_read_timeout 3600s;
                    proxy_send_timeout 3600s;
                    proxy_next_upstream error;
                    proxy_next_upstream_tries 2;
                }
            }
        }

        """
    }

    /// Starts nginx before `upstreams` and waits until it answers `/healthz` through them.
    static func start(upstreams: [Int], connections: Int) async throws(BenchError) -> RestartFront {
        let nginx = try await ThrowawayNginx.start(
            role: "the front nginx", missing: "nginx is needed as the front (Debian: apt-get install nginx)",
            directoryPrefix: "hail-bench-front", probePath: "/healthz",
            configuration: {
                configuration(port: $0, upstreams: upstreams, connections: connections, directory: $1)
            })
        return RestartFront(nginx: nginx)
    }

    /// Where clients connect.
    var endpoint: HTTPEndpoint { nginx.endpoint }

    /// Stops nginx and removes its directory.
    func stop() async { await nginx.stop() }
}
