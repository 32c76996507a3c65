import Foundation
import HailProcess

/// A throwaway nginx in front of two `hail server` nodes, as docs/DEPLOY.md's front without TLS: round robin,
/// WebSocket upgrades, `proxy_next_upstream error timeout` (a refused connect goes to the other node at once; the
/// 5 s connect timeout lets the SYN retries reach a node whose listen queue is full) and `max_fails=0`: nginx never counts a node down. With `max_fails=1`
/// a node that had failed once was left out for good after the other was killed: 61,283 upgrades answered 502
/// `no live upstreams` in a minute while it listened (docs/BENCHMARKS.md, "A crash storm"). Its own directory.
final class RestartFront: Sendable {
    /// The port it listens on (127.0.0.1).
    var port: Int { nginx.port }
    private let nginx: ThrowawayNginx

    private init(nginx: ThrowawayNginx) { self.nginx = nginx }

    /// How long the benchmark lets a node that is back settle before the next step.
    static let rejoin = Duration.seconds(2)

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
        \(upstreams.map { "        server 127.0.0.1:\($0) max_fails=0;" }.joined(separator: "\n"))
                keepalive 64;
                keepalive_timeout 20s;
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
                    proxy_next_upstream error timeout;
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

    /// nginx's master and workers.
    var pids: [Int32] { RoleCPU.withChildren(nginx.pid) }

    /// nginx's error log so far, counted by kind: what follows `while` or the message before the client, numbers
    /// folded ("connect() failed (111: Connection refused)", "no live upstreams", ...).
    func errorCounts() -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in nginx.errorLog().split(separator: "\n") where line.contains("[error]") || line.contains("[warn]") {
            guard let star = line.range(of: ": *") else { continue }
            var message = line[star.upperBound...].drop(while: { $0 != " " }).dropFirst()
            if let client = message.range(of: ", client:") { message = message[..<client.lowerBound] }
            counts[String(message.prefix(90)), default: 0] += 1
        }
        return counts
    }

    /// Where clients connect.
    var endpoint: HTTPEndpoint { nginx.endpoint }

    /// Stops nginx and removes its directory.
    func stop() async { await nginx.stop() }
}
