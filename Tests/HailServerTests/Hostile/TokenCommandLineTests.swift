import Foundation
import HailNet
import HailProcess
import HailProtocol
import HailServer
import HailTesting
import Testing

/// `hail keys`, `hail token` and `hail server --jwks` end to end, and the secret files `hail server` refuses.
@Suite("hail keys, token and server: access tokens and secret files", .serialized)
struct TokenCommandLineTests {
    /// Runs `hail` with `arguments` to its end: its exit status and standard output.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try #require(FileManager.default.isExecutableFile(atPath: ServerChild.hailBesideThisExecutable))
        let output = Pipe()
        let process = try ChildProcess.start(
            ServerChild.hailBesideThisExecutable, arguments, standardOutput: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        let (ended, text) = try await onItsOwnThread { () -> (ChildProcess.Termination, String) in
            let data = output.fileHandleForReading.readDataToEndOfFile()
            return (process.waitUntilExit(), String(decoding: data, as: UTF8.self))
        }
        guard case .exited(let code) = ended else { return (-1, text) }
        return (code, text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hail-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func aSecretOthersMayReadStopsTheStartWithWhatToFix() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("hail.secret").path
        try Data((SecureRandom.hex(byteCount: 32) + "\n").utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        let (status, text) = try await ServerFlagsTests.refusal(of: ["--secret-file", path])
        #expect(status == 64)
        #expect(
            text.contains(
                "the secret file \(path) may be read by group or others (mode 644); it holds a secret: "
                    + "run `chmod 600 \(path)` and start again"))
        // `hail token` refuses it the same way.
        let minted = try await Self.run(["token", "--role", "rider", "--subject", "r-1", "--secret-file", path])
        #expect(minted.status == 64)
        #expect(minted.output.isEmpty)
    }

    @Test func aScaledNodeWithoutItsSecretRefusesToStartAndCreatesNone() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("hail.secret").path
        let key = try DeploymentKey.create(in: folder.path)
        let (status, text) = try await ServerFlagsTests.refusal(
            of: ["--redis", "redis://127.0.0.1:1", "--jwks", key.jwksPath, "--secret-file", path])
        #expect(status == 64)
        #expect(
            text.contains(
                "the secret file \(path) is missing; a --postgres/--redis node never creates one: "
                    + "give every node the deployment's secret (mode 0600) with --secret-file"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test(arguments: [["--redis", "redis://127.0.0.1:1"], ["--postgres", "postgresql://hail@127.0.0.1:1/hail"]])
    func aScaledNodeWithoutAKeySetRefusesToStartAndSaysWhatToRun(_ backend: [String]) async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Even with its secret in place: the secret's hail1 tokens are for the embedded demo, not a deployment.
        let path = folder.appendingPathComponent("hail.secret").path
        _ = try ServerSecret.loadOrCreate(at: path)
        let (status, text) = try await ServerFlagsTests.refusal(of: backend + ["--secret-file", path])
        #expect(status == 64)
        #expect(
            text.contains(
                "a --postgres/--redis node needs --jwks FILE: access tokens of a deployment are JWTs (hail1 tokens "
                    + "are for the embedded demo and share links only). Make a key once with "
                    + "`hail keys --private-key signing.pem --jwks hail.jwks`, start every node with "
                    + "--jwks hail.jwks, and mint tokens with `hail token --private-key signing.pem ...` "
                    + "(docs/DEPLOY.md, \"Access tokens\")"))
    }

    @Test func aKeySetThatCannotBeReadStopsTheStartAndCreatesNothing() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let secret = folder.appendingPathComponent("hail.secret").path
        let jwks = folder.appendingPathComponent("missing.json").path
        let (status, text) = try await ServerFlagsTests.refusal(of: ["--jwks", jwks, "--secret-file", secret])
        #expect(status == 64)
        #expect(text.contains("--jwks: cannot read the key set \(jwks); check the path (hail keys writes one)"))
        #expect(!FileManager.default.fileExists(atPath: secret))
        try Data(#"{"keys":[{"kty":"oct","kid":"h","k":"c2VjcmV0"}]}"#.utf8).write(to: URL(fileURLWithPath: jwks))
        let symmetric = try await ServerFlagsTests.refusal(of: ["--jwks", jwks, "--secret-file", secret])
        #expect(symmetric.status == 64)
        #expect(
            symmetric.text.contains(
                "--jwks: the key set \(jwks) is refused: key \"h\": its kty is \"oct\"; only EC (ES256) and RSA (RS256)"
                    + " keys verify tokens"))
        #expect(!FileManager.default.fileExists(atPath: secret))
    }

    @Test func keysTokenAndAServerWithTheKeySetRotateWithNoLogout() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let jwks = folder.appendingPathComponent("jwks.json").path
        let first = folder.appendingPathComponent("first.pem").path
        let second = folder.appendingPathComponent("second.pem").path
        #expect(try await Self.run(["keys", "--private-key", first, "--jwks", jwks, "--kid", "k1"]).status == 0)
        #expect(SecretFileTests.mode(first) == 0o600)
        // A private key is never overwritten.
        #expect(try await Self.run(["keys", "--private-key", first, "--jwks", jwks, "--kid", "k9"]).status == 64)
        let server = try await ServerFlagsTests.start(
            ["--jwks", jwks, "--token-audience", "hail-test", "--jwks-reload-seconds", "3600"], in: folder)
        defer { server.kill() }
        let base = "http://127.0.0.1:\(server.port)"
        func status(_ token: String) async -> Int {
            await ServerHarness.overTheWire(
                base, "GET", "/v1/trips/active", headers: ["Authorization": "Bearer \(token)"], body: Data()
            ).status
        }
        func mint(_ key: String, kid: String) async throws -> String {
            try await Self.run([
                "token", "--role", "rider", "--subject", "rider-1", "--private-key", key, "--kid", kid, "--audience",
                "hail-test",
            ]).output
        }
        let old = try await mint(first, kid: "k1")
        #expect(await status(old) == 204)
        // The README's form, its file now holding the signing key, mints a JWT too.
        let fromSecretFile = try await Self.run([
            "token", "--role", "driver", "--subject", "driver-1", "--secret-file", first, "--kid", "k1", "--audience",
            "hail-test",
        ])
        #expect(fromSecretFile.output.split(separator: ".").count == 3)
        #expect(!fromSecretFile.output.hasPrefix("hail1."))
        #expect(await status(fromSecretFile.output) == 403)  // a driver's token, on a rider's route
        // The server's own secret signs share links only, now that it has a key set.
        let secretToken = try await Self.run([
            "token", "--role", "rider", "--subject", "rider-1", "--secret-file",
            folder.appendingPathComponent("hail.secret").path,
        ])
        #expect(await status(secretToken.output) == 401)

        #expect(
            try await Self.run(["keys", "--private-key", second, "--jwks", jwks, "--kid", "k2", "--alg", "RS256"])
                .status == 0)
        let new = try await mint(second, kid: "k2")
        #expect(await status(new) == 401)
        server.process.send(SIGHUP)
        let reloaded = await withDeadline(30) { () -> String? in
            for await line in server.errorLines where line.contains(#""event":"keys_reloaded""#) { return line }
            return nil
        }
        #expect(reloaded?.contains(#""kids":["k1","k2"]"#) == true)
        #expect(await status(old) == 204)
        #expect(await status(new) == 204)
    }
}
