import Foundation
import HailCore
import HailNet
import HailProtocol
import HailServer
import HailTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A failure of the loopback harness itself (a deadline passed, a process misbehaved).
struct LoopbackError: Error, CustomStringConvertible {
    let description: String
}

/// One WebSocket through HailNet's client, with its frames decoded as they arrive.
final class TestSocket: Sendable {
    let connection: WebSocketConnection
    private let inbox = Mailbox<String>()

    init(_ connection: WebSocketConnection) {
        self.connection = connection
        let inbox = self.inbox
        Task {
            for await message in connection.messages {
                if case .text(let text) = message { await inbox.put(text) }
            }
            await inbox.finish()
        }
    }

    /// The next frame's JSON text, or a thrown error after `seconds`.
    func nextText(within seconds: Double = 30) async throws -> String {
        guard let text = await inbox.nextOrNil(within: seconds) else {
            throw LoopbackError(
                description: "no frame within \(seconds) s (closed: \(String(describing: connection.closeInfo)))")
        }
        return text
    }

    /// The next frame of `type`, skipping others (positions, say), decoded as `Frame`.
    func next<Frame: Decodable>(_ type: String, as frame: Frame.Type, within seconds: Double = 30) async throws -> Frame
    {
        while true {
            let text = try await nextText(within: seconds)
            if text.contains("\"type\":\"\(type)\"") { return try HailJSON.decode(Frame.self, from: Data(text.utf8)) }
        }
    }

    func send<Frame: Encodable>(_ frame: Frame) throws {
        connection.send(text: try HailJSON.encodeString(frame))
    }

    /// How the connection closed (waits for it).
    func closed() async -> WebSocketCloseInfo { await connection.closed() }
}

/// The real server on loopback: HailNet, SQLite file, access tokens as ES256 JWTs of a key set (the secret's
/// HMAC when `minter` is nil); clients over real sockets.
struct LoopbackServer {
    let server: BackendServer
    let databasePath: String
    let tokens: TokenAuthority
    let client: WebSocketClient
    /// Mints the access tokens, as an operator's identity provider would; nil for the secret's `hail1` tokens.
    var minter: JWTMinter?
    /// Closes backends opened for this server (the scaled ones: connections, the test's schema).
    var closeBackends: @Sendable () async -> Void = {}

    static func start(
        databasePath: String? = nil, configure: (inout BackendServer.Options) -> Void = { _ in }
    ) async throws -> LoopbackServer {
        let path =
            databasePath
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("hail-loopback-\(UUID().uuidString).db")
            .path
        var options = BackendServer.Options()
        options.port = 0
        options.databasePath = path
        options.secret = SecureRandom.bytes(32)
        options.log = nil
        let (keys, minter) = try Self.keySet()
        options.tokenKeys = keys
        configure(&options)
        let server = try await BackendServer.start(options)
        return LoopbackServer(
            server: server, databasePath: path, tokens: options.tokenAuthority, client: try WebSocketClient(),
            minter: minter)
    }

    /// A key set of one new ES256 key, and the minter that signs with it.
    static func keySet() throws -> (TokenKeyRing, JWTMinter) {
        let minter = JWTMinter(
            key: try SigningKey.generate(.es256), issuer: TokenRules.defaultIssuer, audience: TokenRules.defaultAudience
        )
        return (
            TokenKeyRing(keys: [minter.keyID: TokenKey(id: minter.keyID, key: try minter.publicKey.verificationKey())]),
            minter
        )
    }

    func stop() async {
        await client.shutdown()
        await server.shutdown()
        await closeBackends()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
    }

    var base: String { "http://127.0.0.1:\(server.port)" }

    func token(_ role: Role, _ subject: String) -> String {
        if let minter { return minter.mint(role: role, subject: subject, now: Date()) }
        let now = Int64(Date().timeIntervalSince1970)
        return tokens.mint(AccessToken(role: role, sub: subject, exp: now + 3600, iat: now))
    }

    func http(
        _ method: String, _ path: String, token: String? = nil, body: String? = nil, key: String? = nil
    ) async throws -> (status: Int, body: Data) {
        try await Self.http(base: base, method, path, token: token, body: body, key: key)
    }

    static func http(
        base: String, _ method: String, _ path: String, token: String? = nil, body: String? = nil, key: String? = nil
    ) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let key { request.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// A stream opened as a native app opens it: the token in `Authorization` on the upgrade, not in the URL.
    func socket(_ path: String, token: String) async throws -> TestSocket {
        TestSocket(
            try await client.connect(
                to: "ws://127.0.0.1:\(server.port)\(path)", headers: [("Authorization", "Bearer \(token)")]))
    }
}
