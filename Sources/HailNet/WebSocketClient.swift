import CLibWebSockets
import Foundation
import HailTime
import Synchronization

/// A WebSocket client over libwebsockets: one lws context and loop thread for any number of connections.
///
/// `URLSessionWebSocketTask` does not work on this Linux, so HailNet speaks ws:// and wss:// itself (TLS through
/// lws's OpenSSL client, trusting `configuration.trust`). Connections have the same shape as server-side ones
/// (`messages`, `send`, `close`, `closed()`).
public final class WebSocketClient: Sendable {
    /// Live counters of this client's connections.
    public let metrics: NetMetrics
    private let loop: EventLoop
    private let engine: ClientEngine
    private let configuration: WebSocketClientConfiguration

    /// Starts the client's loop thread. Throws when lws cannot create a context or the trusted CA file cannot be
    /// read.
    public init(configuration: WebSocketClientConfiguration = WebSocketClientConfiguration()) throws {
        if case .caFile(let path) = configuration.trust, !FileManager.default.isReadableFile(atPath: path) {
            throw NetError.contextCreation("the trusted CA file \(path) cannot be read")
        }
        self.configuration = configuration
        let executor = LoopExecutor()
        let metrics = NetMetrics()
        self.metrics = metrics
        let engine = ClientEngine(executor: executor, metrics: metrics, configuration: configuration)
        var options = EventLoopOptions()
        options.port = nil
        options.rxBufferSize = 4_096
        options.tickSeconds = engine.keepalive.tickSeconds
        options.ioCollectSeconds = configuration.ioCoalescing.timeInterval
        options.cpu = configuration.pinnedLoop.flatMap(EventLoopOptions.core(forLoop:))
        options.clientTrust = configuration.trust
        let loop = try EventLoop(
            options: options, executor: executor,
            handle: { arguments in engine.assumeIsolated { $0.handle(arguments) } },
            // Through the executor, as in NetServer: lws only re-arms timers from inside its service.
            tick: { executor.post { engine.assumeIsolated { $0.tick() } } })
        // Still on the creating thread, which owns the context until the loop starts.
        engine.assumeIsolated { $0.attach(context: ContextPointer(pointer: loop.contextPointer)) }
        self.loop = loop
        self.engine = engine
        loop.start()
    }

    /// Connects to `url` (`ws://host:port/path?query`, or `wss://` for TLS), sending `headers` with the handshake.
    /// A wss:// server whose certificate does not chain to `configuration.trust`, or does not name the URL's host,
    /// is refused.
    ///
    /// `localAddress` binds the socket to a local IP first (e.g. 127.0.0.2), so a load generator can
    /// open more connections to one server than one source address has ephemeral ports.
    /// Throws `NetError` (code `connectFailed`) when the connection or the upgrade fails.
    public func connect(to url: String, headers: [(String, String)] = [], localAddress: String? = nil) async throws
        -> WebSocketConnection
    {
        let target = try Self.parse(url, headers: headers, localAddress: localAddress)
        return try await engine.connect(target)
    }

    /// Connects like `connect(to:headers:localAddress:)`, but the connection is read on the client's loop:
    /// `handler` runs there once the handshake completes and gets every message in the receive callback,
    /// with no task per message (a load generator holding thousands of streams).
    public func connect(
        to url: String, headers: [(String, String)] = [], localAddress: String? = nil,
        handler: @escaping @Sendable (WebSocketConnection) -> any WebSocketInboundHandler
    ) async throws -> WebSocketConnection {
        var target = try Self.parse(url, headers: headers, localAddress: localAddress)
        target.handler = handler
        return try await engine.connect(target)
    }

    /// Runs `body` on the client's loop thread every `interval` (first after one interval) until it returns false
    /// or the client shuts down. Sends made in `body` are written in the same turn, with no task wake-up and no
    /// post per send: a load generator paces thousands of streams this way.
    public func scheduleRepeated(every interval: Duration, _ body: @escaping @Sendable () -> Bool) {
        loop.scheduleRepeated(every: interval, body)
    }

    /// Closes every connection with 1001, waits up to the grace period, then stops the loop thread.
    public func shutdown() async {
        if !loop.isFinished {
            let open = await engine.closeAll(code: 1001, reason: "client shutting down")
            let grace = configuration.shutdownGraceSeconds
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for connection in open { _ = await connection.closed() }
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(grace))
                }
                await group.next()
                group.cancelAll()
            }
        }
        loop.requestStop()
        await loop.waitUntilFinished()
    }

    static func parse(_ url: String, headers: [(String, String)], localAddress: String?) throws -> ClientTarget {
        let secure = url.hasPrefix("wss://")
        guard secure || url.hasPrefix("ws://") else {
            throw NetError.invalidURL("\(url): only ws:// and wss:// URLs are supported")
        }
        let rest = url.dropFirst(secure ? "wss://".count : "ws://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        var pathAndQuery = String(rest.dropFirst(authority.count))
        if pathAndQuery.isEmpty || pathAndQuery.hasPrefix("?") { pathAndQuery = "/" + pathAndQuery }
        let host: String
        let port: Int
        if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            guard let parsed = Int(authority[authority.index(after: colon)...]), (1...65_535).contains(parsed) else {
                throw NetError.invalidURL("\(url): the port is not a number from 1 to 65535")
            }
            port = parsed
        } else {
            host = String(authority)
            port = secure ? 443 : 80
        }
        guard !host.isEmpty else { throw NetError.invalidURL("\(url): no host") }
        let path = String(pathAndQuery.prefix { $0 != "?" })
        let queryText = pathAndQuery.dropFirst(path.count).dropFirst()
        let query = queryText.split(separator: "&").map { item -> QueryItem in
            let parts = item.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncodingLoosely }
            return QueryItem(name: parts[0], value: parts.count > 1 ? parts[1] : "")
        }
        return ClientTarget(
            host: host, port: port, secure: secure, path: path, query: query, pathAndQuery: pathAndQuery,
            headers: headers, localAddress: localAddress)
    }
}

extension String {
    /// Percent-decodes, keeping malformed escapes as they are (only used to describe client URLs).
    fileprivate var removingPercentEncodingLoosely: String {
        var bytes: [UInt8] = []
        var iterator = Array(utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension WebSocketClient {
    /// The client's loop executor (tests run an actor on it).
    var executor: LoopExecutor { loop.executor }
}
