import Foundation
import HailProcess
import HailTesting
import Testing

/// A throwaway nginx running the repository's `deploy/nginx/hail.conf` in front of one `hail server`: the file's
/// ports, certificate and log paths swapped for free loopback ports and a folder of the test's, and a certificate
/// for 127.0.0.1 and localhost from a CA made for this run.
final class TLSFront: Sendable {
    /// The port nginx speaks HTTPS (and wss://) on.
    let httpsPort: Int
    /// The port whose plain HTTP redirects to HTTPS.
    let httpPort: Int
    /// The CA the server's certificate chains to (PEM).
    let caFile: String
    /// nginx's access log (the `hail_edge` format).
    let accessLog: URL
    let folder: URL
    private let master: ChildProcess

    private init(httpsPort: Int, httpPort: Int, caFile: String, accessLog: URL, folder: URL, master: ChildProcess) {
        self.httpsPort = httpsPort
        self.httpPort = httpPort
        self.caFile = caFile
        self.accessLog = accessLog
        self.folder = folder
        self.master = master
    }

    /// The repository's nginx configuration.
    static var repositoryConfiguration: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy/nginx/hail.conf")
    }

    /// nginx, where Debian puts it.
    static var nginx: String? {
        ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// `deploy/nginx/hail.conf` with each deployment value replaced by the test's; every value must be there, so
    /// a file that drifted from what the test expects fails here, saying which.
    static func templated(
        _ text: String, httpsPort: Int, httpPort: Int, hailPort: Int, folder: String
    ) throws -> String {
        let swaps = [
            ("listen 443 ssl http2;", "listen 127.0.0.1:\(httpsPort) ssl http2;"),
            ("listen 80;", "listen 127.0.0.1:\(httpPort);"),
            ("server 127.0.0.1:8080 max_fails=0;", "server 127.0.0.1:\(hailPort) max_fails=0;"),
            ("/etc/hail/tls/", "\(folder)/"),
            ("/var/log/nginx/", "\(folder)/"),
            ("https://$host$request_uri", "https://$host:\(httpsPort)$request_uri"),
        ]
        var result = text
        for (from, to) in swaps {
            try #require(result.contains(from), "deploy/nginx/hail.conf no longer says `\(from)`")
            result = result.replacingOccurrences(of: from, with: to)
        }
        return result
    }

    /// Makes the certificates, writes the configuration and starts nginx in front of `hailPort`; returns once
    /// nginx accepts on its HTTPS port.
    static func start(hailPort: Int, folder: URL) async throws -> TLSFront {
        let nginx = try #require(nginx, "nginx is needed (Debian: apt-get install nginx; scripts/setup.sh installs it)")
        let path = folder.path
        try await Certificates.make(in: folder)
        // A port found free can be taken by another test's server before nginx binds it: nginx then exits, and the
        // next attempt takes other ports.
        var log = ""
        for _ in 1...3 {
            let (httpsPort, httpPort) = (try ServerChild.freeLoopbackPort(), try ServerChild.freeLoopbackPort())
            let site = try templated(
                String(contentsOf: repositoryConfiguration, encoding: .utf8), httpsPort: httpsPort, httpPort: httpPort,
                hailPort: hailPort, folder: path)
            try Data(site.utf8).write(to: folder.appendingPathComponent("hail.conf"))
            let mainFile = folder.appendingPathComponent("nginx.conf")
            try Data(mainConfiguration(folder: path).utf8).write(to: mainFile)
            let pidFile = folder.appendingPathComponent("nginx.pid").path
            try? FileManager.default.removeItem(atPath: pidFile)
            let master = try ChildProcess.start(nginx, ["-p", path, "-e", "\(path)/error.log", "-c", mainFile.path])
            let front = TLSFront(
                httpsPort: httpsPort, httpPort: httpPort, caFile: "\(path)/ca.pem",
                accessLog: folder.appendingPathComponent("hail-access.log"), folder: folder, master: master)
            // nginx writes its pid file once every listener is bound; a port taken ends the master instead.
            let listening = await withDeadline(20) { () -> Bool? in
                while master.isRunning {
                    if FileManager.default.fileExists(atPath: pidFile) { return true }
                    try? await Task.sleep(for: .milliseconds(20))
                }
                return false
            }
            if listening == true { return front }
            log = (try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
            await front.stop()
        }
        Issue.record("nginx did not start listening within 3 attempts: \(log.suffix(600))")
        throw CancellationError()
    }

    /// The main file a distribution ships, reduced to what a user's nginx needs, with the site included as
    /// /etc/nginx/conf.d/*.conf would be.
    static func mainConfiguration(folder path: String) -> String {
        """
        daemon off;
        master_process on;
        worker_processes 1;
        pid \(path)/nginx.pid;
        error_log \(path)/error.log warn;
        events { worker_connections 256; }
        http {
            client_body_temp_path \(path)/body;
            proxy_temp_path \(path)/proxy;
            fastcgi_temp_path \(path)/fastcgi;
            uwsgi_temp_path \(path)/uwsgi;
            scgi_temp_path \(path)/scgi;
            include \(path)/hail.conf;
        }

        """
    }

    /// The access log's lines so far.
    func accessLines() -> [String] {
        ((try? String(contentsOf: accessLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Stops nginx (SIGTERM to the master, which stops its worker).
    func stop() async {
        _ = await master.stop()
    }
}

/// The run's certificates, made with the `openssl` command: a CA, a server certificate it signs for 127.0.0.1 and
/// localhost, and a second CA that signs nothing here (a client trusting only it must refuse the server).
enum Certificates {
    static func make(in folder: URL) async throws {
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1"]
        let ca = ["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]
        try await openssl(
            ["req", "-x509"] + key + ["-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=Hail test CA"] + ca,
            in: folder)
        try await openssl(
            ["req", "-x509"] + key + [
                "-keyout", "stranger-ca.key", "-out", "stranger-ca.pem", "-subj", "/CN=Hail test CA",
            ] + ca, in: folder)
        try await openssl(
            ["req", "-x509"] + key + [
                "-keyout", "hail.key", "-out", "hail.crt", "-subj", "/CN=localhost", "-CA", "ca.pem", "-CAkey",
                "ca.key", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-addext",
                "basicConstraints=CA:FALSE", "-addext", "extendedKeyUsage=serverAuth",
            ], in: folder)
    }

    private static func openssl(_ arguments: [String], in folder: URL) async throws {
        let openssl = try #require(
            ["/usr/bin/openssl", "/usr/local/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "the openssl command is needed (Debian: apt-get install openssl)")
        // Relative paths resolve in the folder: openssl runs there through `-out`'s absolute form.
        let absolute = arguments.map { argument in
            argument.hasSuffix(".pem") || argument.hasSuffix(".key") || argument.hasSuffix(".crt")
                ? folder.appendingPathComponent(argument).path : argument
        }
        let child = try ChildProcess.start(openssl, absolute)
        let ended = await withDeadline(30) { await child.waitForExit() }
        try #require(
            ended == .exited(0),
            "openssl \(arguments.prefix(2).joined(separator: " ")) ended \(String(describing: ended))")
    }
}
