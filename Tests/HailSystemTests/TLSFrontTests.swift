import Foundation
import HailCore
import HailNet
import HailProcess
import HailProtocol
import HailTesting
import Testing

/// The deployment's TLS front for real: nginx running `deploy/nginx/hail.conf` (a certificate from a CA made for
/// the run) before `hail server --trusted-proxies 127.0.0.1` on loopback, and the rider's and the driver's apps
/// (`hail ride`, `hail drive --auto`: `RiderModel` and `DriverModel` on HailClient's transports) riding a whole
/// trip through it over https:// and wss://.
@Suite("A trip through the TLS front of deploy/nginx/hail.conf", .serialized)
struct TLSFrontTests {
    @Test func theRiderAndTheDriverRideAWholeTripOverHTTPSAndWSSThroughNginx() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: HailCommandProcess.executable.path),
            "build the hail executable first (swift build --build-tests builds it beside the tests)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hail-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Its request log on: the client address it believed is what the X-Forwarded-For check reads.
        let server = try await SystemServer(
            folder: folder, arguments: ["--trusted-proxies", "127.0.0.1"], quiet: false)
        let front: TLSFront
        do { front = try await TLSFront.start(hailPort: server.child.port, folder: folder) } catch {
            await server.stop()
            throw error
        }
        do {
            try await probe(front, server: server, folder: folder)
            try await secureSockets(front, server: server)
            try await ride(front, server: server, folder: folder)
        } catch {
            await front.stop()
            await server.stop()
            throw error
        }
        await front.stop()
        await server.stop()
    }

    @Test func docsDeployShowsTheTestedFileByteForByte() throws {
        let file = try String(contentsOf: TLSFront.repositoryConfiguration, encoding: .utf8)
        let docs = try String(
            contentsOf: TLSFront.repositoryConfiguration.deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs/DEPLOY.md"), encoding: .utf8)
        #expect(docs.contains("```nginx\n\(file)```\n"))
    }

    /// What any client sees of the front: HTTP/2 with HSTS, /metrics refused, plain HTTP redirected, and the node
    /// judging a client by the address nginx saw, never by an X-Forwarded-For the client wrote.
    private func probe(_ front: TLSFront, server: SystemServer, folder: URL) async throws {
        let https = "https://127.0.0.1:\(front.httpsPort)"
        let health = try await CurlProbe.get("\(https)/healthz", caFile: front.caFile, folder: folder)
        #expect(health.version == "HTTP/2" && health.status == 200)
        #expect(health.headers["strict-transport-security"] == "max-age=63072000")

        let metrics = try await CurlProbe.get("\(https)/metrics", caFile: front.caFile, folder: folder)
        #expect(metrics.status == 403)
        #expect(metrics.headers["strict-transport-security"] == "max-age=63072000")

        let plain = try await CurlProbe.get(
            "http://127.0.0.1:\(front.httpPort)/v1/trips/active?x=1", caFile: front.caFile, folder: folder)
        #expect(plain.status == 301)
        #expect(plain.headers["location"] == "\(https)/v1/trips/active?x=1")

        // From 127.0.0.2, claiming to be 203.0.113.9: the node logs the proxy as its peer and 127.0.0.2 as the client.
        let path = "/v1/tls-probe-\(UUID().uuidString.lowercased())"
        let spoofed = try await CurlProbe.get(
            "\(https)\(path)", caFile: front.caFile, folder: folder,
            ["--interface", "127.0.0.2", "-H", "X-Forwarded-For: 203.0.113.9"])
        #expect(spoofed.status == 404)
        let line = await withDeadline(20) { () -> String? in
            for await line in server.child.errorLines {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    object["path"] as? String == path
                else { continue }
                return line
            }
            return nil
        }
        let logged = try #require(line, "the node never logged \(path)")
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(logged.utf8)) as? [String: Any])
        #expect(fields["address"] as? String == "127.0.0.2")
        #expect(fields["remote"] as? String == "127.0.0.1")
        #expect(fields["status"] as? String == "404")
        #expect(!logged.contains("203.0.113.9"))
        #expect(
            front.accessLines().contains { $0.hasPrefix("127.0.0.2 ") && $0.contains("\"GET \(path) HTTP/2.0\" 404") })
    }

    /// HailNet's client over wss://: trusting the run's CA it gets the driver's hello; trusting another CA it is
    /// refused, saying the certificate did not verify.
    private func secureSockets(_ front: TLSFront, server: SystemServer) async throws {
        let url =
            "wss://127.0.0.1:\(front.httpsPort)\(Routes.driverLive.template)?access_token=\(server.token(.driver, "driver-wss"))"
        var trusting = WebSocketClientConfiguration()
        trusting.trust = .caFile(front.caFile)
        let client = try WebSocketClient(configuration: trusting)
        let connection = try await client.connect(to: url)
        let first = await withDeadline(20) { () -> WebSocketMessage? in
            for await message in connection.messages { return message }
            return nil
        }
        guard case .text(let hello)? = first else {
            Issue.record("no first frame over wss://, got \(String(describing: first))")
            await client.shutdown()
            return
        }
        #expect(hello.contains(#""type":"hello""#))
        // The operator's stream is upgraded through the front too: its hello, then the fleet's snapshot.
        let fleet = try await client.connect(
            to:
                "wss://127.0.0.1:\(front.httpsPort)\(Routes.fleetLive.template)?access_token=\(server.token(.operator, "ops"))"
        )
        let fleetTypes = await withDeadline(20) { () -> [String] in
            var types: [String] = []
            for await message in fleet.messages {
                guard case .text(let text) = message,
                    let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                else { continue }
                types.append(object["type"] as? String ?? "?")
                if types.count == 2 { break }
            }
            return types
        }
        #expect(fleetTypes == ["hello", "fleetSnapshot"])
        await client.shutdown()

        var stranger = WebSocketClientConfiguration()
        stranger.trust = .caFile(front.folder.appendingPathComponent("stranger-ca.pem").path)
        let refusing = try WebSocketClient(configuration: stranger)
        do {
            _ = try await refusing.connect(to: url)
            Issue.record("a server whose certificate does not chain to the trusted CA was accepted")
        } catch {
            #expect(
                "\(error)".contains("certificate verify failed: unable to get local issuer certificate"), "\(error)")
        }
        await refusing.shutdown()
    }

    /// `hail drive --auto` serves the ride `hail ride` asks for, both through the front. Each app runs in a user and
    /// mount namespace of its own where the run's CA is the system's trust store (bound over Debian's bundle), as an
    /// iPhone trusts the CAs installed on it: the `hail` apps' HTTP client (`NetHTTPExchange`, OpenSSL's default
    /// store) and WebSocket client are given no CA file.
    private func ride(_ front: TLSFront, server: SystemServer, folder: URL) async throws {
        let bundle = "/etc/ssl/certs/ca-certificates.crt"
        let probe = try ChildProcess.start(
            "/usr/bin/unshare",
            ["--user", "--map-root-user", "--mount", "/bin/sh", "-c", "mount --bind \"$0\" \(bundle)", front.caFile])
        let probed = await withDeadline(20) { await probe.waitForExit() }
        try #require(
            probed == .exited(0),
            "the apps trust the run's CA through a private mount namespace, which needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)"
        )
        let trustingTheRunsCA = [
            "/usr/bin/unshare", "--user", "--map-root-user", "--mount", "/bin/sh", "-c",
            "mount --bind \"$0\" \(bundle) && exec \"$@\"", front.caFile,
        ]
        let base = "https://127.0.0.1:\(front.httpsPort)"
        let driver = try HailCommandProcess(
            [
                "--server", base, "--token", server.token(.driver, "tls-driver"), "--start", "43.7390,7.4270",
                "--speed", "200", "--auto", "--json", "--trips", "1",
            ], command: "drive", wrapper: trustingTheRunsCA)
        let driverReady = await withDeadline(30) { () -> Bool in
            for await line in driver.lines where line.contains(#""link":"stream""#) { return true }
            return false
        }
        if driverReady != true { driver.process.send(SIGKILL) }
        try #require(driverReady == true, "the driver's stream never came up through the front")
        let rider = try HailCommandProcess(
            [
                "--server", base, "--token", server.token(.rider, "tls-rider"), "--from", "43.7396,7.4276",
                "--to", "43.7380,7.4260", "--json", "--state", folder.appendingPathComponent("ride-cursor.sqlite").path,
            ], command: "ride", wrapper: trustingTheRunsCA)
        let phases = await withDeadline(90) { () -> [String] in
            var phases: [String] = []
            for await line in rider.lines {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let phase = object["phase"] as? String
                else { continue }
                if phases.last != phase { phases.append(phase) }
            }
            return phases
        }
        if phases == nil { rider.process.send(SIGKILL) }
        #expect(await rider.status() == 0)
        #expect(
            (phases ?? []).drop { $0 == "idle" } == [
                "searching", "driverAssigned", "driverArrived", "onTrip", "completed",
            ])
        let driverEnded = await withDeadline(30) { await driver.status() }
        if driverEnded == nil { driver.process.send(SIGKILL) }
        #expect(driverEnded == 0)

        // nginx saw both apps: REST over HTTP/1.1 (the Linux apps' own client; an iPhone's URLSession speaks HTTP/2),
        // the driver's and the rider's streams upgraded over HTTP/1.1, no token in its log.
        let lines = front.accessLines()
        #expect(lines.contains { $0.contains("\"POST /v1/trips HTTP/1.1\" 201") })
        #expect(lines.contains { $0.contains("\"GET /v1/drivers/me/live HTTP/1.1\" 101") })
        #expect(
            lines.contains {
                $0.range(of: #""GET /v1/trips/[^/ ]+/live HTTP/1.1" 101"#, options: .regularExpression) != nil
            })
        #expect(!lines.contains { $0.contains("access_token") })
    }
}
