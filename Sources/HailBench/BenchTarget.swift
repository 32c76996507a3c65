import Foundation
import HailServer

/// The server a benchmark measures: the real `BackendServer` started in this process on a fresh
/// SQLite file, or one already running (`--server URL --secret-file F`, F its signing key or secret).
public final class BenchTarget: Sendable {
    /// Where to send requests.
    let endpoint: HTTPEndpoint
    /// True when the server runs in this process (its CPU and memory are then this process's).
    let inProcess: Bool
    /// Signs tokens the server accepts; nil when measuring a running server without its key or secret.
    private let tokens: TokenSigner?
    /// The in-process server, nil for a remote one.
    private let server: BackendServer?
    /// The temporary directory holding the in-process server's database, removed at shutdown.
    private let directory: URL?

    /// Wraps what `startInProcess` or `remote` set up.
    private init(
        endpoint: HTTPEndpoint, tokens: TokenSigner?, server: BackendServer?, directory: URL?
    ) {
        self.endpoint = endpoint
        self.inProcess = server != nil
        self.tokens = tokens
        self.server = server
        self.directory = directory
    }

    /// Starts the real server on 127.0.0.1, port 0, with a temporary database and a random secret.
    public static func startInProcess() async throws(BenchError) -> BenchTarget {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hail-bench-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw BenchError("cannot create a temporary directory: \(error)")
        }
        var secretGenerator = SystemRandomNumberGenerator()
        var options = BackendServer.Options()
        options.host = "127.0.0.1"
        options.port = 0
        options.databasePath = directory.appendingPathComponent("bench.db").path
        options.secret = (0..<32).map { _ in UInt8.random(in: 0...255, using: &secretGenerator) }
        // A log line per request would measure stderr, not the server.
        options.log = nil
        let server: BackendServer
        do {
            server = try await BackendServer.start(options)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw BenchError("the server could not start: \(error)")
        }
        return BenchTarget(
            endpoint: HTTPEndpoint(address: "127.0.0.1", port: server.port, authority: "127.0.0.1:\(server.port)"),
            tokens: .secret(TokenAuthority(authenticator: HMACAuthenticator(secret: options.secret))), server: server,
            directory: directory)
    }

    /// A server already running at `url`; tokens are signed with what `secretFile` holds if given: the private
    /// key of the server's key set (a scaled node's `--jwks`), or an embedded server's secret.
    public static func remote(url: String, secretFile: String?) throws(BenchError) -> BenchTarget {
        let endpoint = try HTTPEndpoint(url: url)
        var tokens: TokenSigner?
        if let secretFile {
            do {
                tokens = try TokenSigner.load(path: secretFile)
            } catch {
                throw BenchError.invalidOption(error.description)
            }
        }
        return BenchTarget(endpoint: endpoint, tokens: tokens, server: nil, directory: nil)
    }

    /// True when tokens can be minted (always in-process; with `--secret-file` otherwise).
    public var canMintTokens: Bool { tokens != nil }

    /// A bearer token for `subject` in `role`, valid for a day.
    func token(role: Role, subject: String) -> String {
        tokens?.mint(role: role, subject: subject, now: Date(), lifetime: 86_400) ?? ""
    }

    /// Stops the in-process server and deletes its database; nothing for a remote one.
    public func shutdown() async {
        await server?.shutdown()
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// "in-process" or the URL measured.
    public var label: String { inProcess ? "in-process (127.0.0.1:\(endpoint.port))" : "http://\(endpoint.authority)" }
}
