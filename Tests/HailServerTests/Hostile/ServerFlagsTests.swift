import Foundation
import HailNet
import HailProcess
import HailProtocol
import HailServer
import HailTesting
import Testing

/// `hail server`'s limit flags, end to end: the real executable, limited by what its flags say.
@Suite("Hostile: hail server limit flags", .serialized)
struct ServerFlagsTests {
    /// Runs `hail server` with `arguments` (port, database and secret are added) until it reports its port.
    static func start(_ arguments: [String], in folder: URL) async throws -> (ChildProcess, Int) {
        let output = Pipe()
        let lines = Inbox<String>()
        // The handler holds the pipe until end of file, when the child has gone: the caller keeps only the child,
        // and releasing the pipe earlier would close the read end the handler watches.
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                output.fileHandleForReading.readabilityHandler = nil
                Task { await lines.finish() }
                return
            }
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
                Task { await lines.put(String(line)) }
            }
        }
        let process = try ChildProcess.start(
            ServerProcess.executable.path,
            [
                "server", "--port", "0", "--quiet", "--db", folder.appendingPathComponent("hail.db").path,
                "--secret-file", folder.appendingPathComponent("hail.secret").path,
            ] + arguments, standardOutput: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        while let line = await lines.next(within: 20) {
            if let range = line.range(of: "listening on http://127.0.0.1:") {
                return (process, Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0)
            }
        }
        process.send(SIGTERM)
        throw LoopbackError(description: "hail server did not report its port")
    }

    /// Runs `hail server` with `arguments` (and a database it must never reach), which should refuse to start:
    /// its exit status and what it wrote to stderr.
    static func refusal(
        of arguments: [String], command: [String] = ["server", "--port", "0", "--db", "/nonexistent/never.db"]
    ) async throws -> (status: Int32, text: String) {
        try #require(FileManager.default.isExecutableFile(atPath: ServerProcess.executable.path))
        let errors = Pipe()
        let process = try ChildProcess.start(
            ServerProcess.executable.path, command + arguments,
            standardError: errors.fileHandleForWriting.fileDescriptor)
        try errors.fileHandleForWriting.close()
        let (ended, text) = try await onItsOwnThread { () -> (ChildProcess.Termination, String) in
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            return (process.waitUntilExit(), String(decoding: data, as: UTF8.self))
        }
        // The exit status, or the signal's number when a signal ended it (what Foundation's `Process` reported).
        switch ended {
        case .exited(let code): return (code, text)
        case .signalled(let number): return (number, text)
        }
    }

    @Test func theFlagsSetTheLimitsTheServerEnforces() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: ServerProcess.executable.path),
            "build the hail executable first (swift build --build-tests builds it beside the tests)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hail-flags-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // One token per 100 s: however slow a loaded machine is between the three requests, none refills.
        let (process, port) = try await Self.start(
            ["--requests-per-address", "0.01:2", "--limit-loopback", "--request-timeout", "5"], in: folder)
        let base = "http://127.0.0.1:\(port)"
        let firstSent = Date()
        let statuses = [
            await ServerHarness.overTheWire(base, "GET", "/healthz", headers: [:], body: Data()).status,
            await ServerHarness.overTheWire(base, "GET", "/healthz", headers: [:], body: Data()).status,
        ]
        let refused = await ServerHarness.overTheWire(base, "GET", "/healthz", headers: [:], body: Data())
        let elapsed = Date().timeIntervalSince(firstSent)
        process.send(SIGTERM)
        _ = process.waitUntilExit()
        #expect(statuses == [200, 200])
        #expect(refused.status == 429)
        // The clock is real: the next token is 100 s after the first request, less what has passed since.
        let retryAfter = Int(refused.headers.first { $0.key.lowercased() == "retry-after" }?.value ?? "") ?? -1
        #expect((Int((100 - elapsed).rounded(.up))...100).contains(retryAfter), "Retry-After \(retryAfter)")
        #expect(
            String(decoding: refused.body, as: UTF8.self).contains(
                "too many requests from this address (limit 0.01/s, burst 2); retry after \(retryAfter) s"))
    }

    @Test(arguments: [
        ["--requests-per-token", "0"], ["--messages-per-socket", "fast"], ["--connections-per-address", "5:0.5"],
        ["--request-timeout", "0"], ["--no-rate-limits", "--requests-per-token", "5"],
        ["--open-connections-per-address", "0"],
    ])
    func badLimitFlagsAreRefusedWithWhatToFix(_ arguments: [String]) async throws {
        let (status, text) = try await Self.refusal(of: arguments)
        #expect(status != 0)
        #expect(text.hasPrefix("hail server: \(arguments[0])"), "\(text.prefix(200))")
    }

    @Test func noRateLimitsLetsAFloodOfUpgradesThrough() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServerProcess.executable.path))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hail-flags-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (process, port) = try await Self.start(["--no-rate-limits", "--limit-loopback"], in: folder)
        let secret = try ServerSecret.load(at: folder.appendingPathComponent("hail.secret").path)
        let now = Int64(Date().timeIntervalSince1970)
        let token = TokenAuthority(authenticator: HMACAuthenticator(secret: secret)).mint(
            AccessToken(role: .driver, sub: "flood", exp: now + 3600, iat: now))
        let client = try WebSocketClient()
        var hellos = 0
        // 40 upgrades with one token: the default (1/s, bursts of 10) would refuse most of them with 4029
        // unless they took half a minute.
        for _ in 0..<40 {
            let socket = TestSocket(
                try await client.connect(to: "ws://127.0.0.1:\(port)/v1/drivers/me/live?access_token=\(token)"))
            if (try? await socket.nextText(within: 10))?.contains(#""type":"hello""#) == true { hellos += 1 }
        }
        await client.shutdown()
        process.send(SIGTERM)
        _ = process.waitUntilExit()
        #expect(hellos == 40)
    }

    @Test func aBadFlagsFileStopsTheStartWithEveryProblemByLineAndExits65() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hail-flags-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(
            """
            {
              "defaults": {"routeProvider": "graph"},
              "cohorts": [{"name": "a", "match": {"role": "admin"}, "flags": {}}]
            }
            """.utf8
        ).write(to: file)
        let (status, text) = try await Self.refusal(of: ["--flags", file.path])
        #expect(status == 65)
        #expect(
            text == """
                hail server: --flags \(file.path): 2 problems to fix (the server did not start):
                  line 2: defaults.routeProvider: must be one of straight-line, not "graph" (graph needs hail server --roads)
                  line 3: cohorts[0].match.role: must be rider or driver, not "admin"

                """)
        let (missing, why) = try await Self.refusal(of: ["--flags", "/nonexistent/flags.json"])
        #expect(missing == 65)
        #expect(
            why.contains(
                "--flags /nonexistent/flags.json: a problem to fix (the server did not start):\n  there is no such file"
            ))
    }

    @Test func theOldRouteCohortsOptionSaysWhereItWent() async throws {
        let (status, text) = try await Self.refusal(of: ["--route-cohorts", "*=graph"])
        #expect(status == 64)
        #expect(text.hasPrefix("hail server: --route-cohorts moved into the flags file"), "\(text.prefix(200))")
    }

    @Test func aServerThatCannotOpenItsDatabaseSaysWhyWithoutTheUsageAndExits1() async throws {
        // The options are well formed; the run cannot happen. The usage would bury the one line that says why.
        let (status, text) = try await Self.refusal(of: [])
        #expect(status == 1)
        #expect(text.hasPrefix("hail server: the server could not start: "), "\(text.prefix(300))")
        #expect(text.contains("/nonexistent/never.db"), "\(text.prefix(300))")
        #expect(!text.contains("usage:"), "\(text.prefix(300))")
    }

    @Test(arguments: [
        (
            [
                "--apns-key-file", "/nonexistent/AuthKey_ABC1234567.p8", "--apns-key-id", "ABC1234567",
                "--apns-team-id", "TEAM123456", "--apns-topic", "com.example.rider",
            ],
            "hail server: --apns-key-file: there is no APNs key file '/nonexistent/AuthKey_ABC1234567.p8'"
        ),
        (
            ["--apns-key-id", "ABC1234567"],
            "hail server: APNs needs --apns-key-file, --apns-key-id, --apns-team-id, --apns-topic; missing"
                + " --apns-key-file, --apns-team-id, --apns-topic"
        ),
    ])
    func aMissingOrUnusableAPNsKeyStopsTheStartUp(_ arguments: [String], message: String) async throws {
        let (status, text) = try await Self.refusal(of: arguments)
        #expect(status == 64)
        #expect(text.hasPrefix(message + "\n"), "\(text.prefix(300))")
        // `hail demo` reads the same flags the same way, before it builds its city.
        let demo = try await Self.refusal(of: arguments, command: ["demo", "--port", "0"])
        #expect(demo.status == 64)
        let demoMessage = "hail demo:" + message.dropFirst("hail server:".count)
        #expect(demo.text.hasPrefix(demoMessage + "\n"), "\(demo.text.prefix(300))")
    }
}
