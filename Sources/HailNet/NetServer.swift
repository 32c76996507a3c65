import CLibWebSockets
import Synchronization

/// One HTTP/1.1 and WebSocket server on one port, over libwebsockets on a libev loop.
///
/// Every HTTP request goes to the `http` handler; every WebSocket upgrade (any path) to `webSocket`.
/// Both run on the cooperative pool. Use `start()` + `shutdown()`, or `run()` until cancelled.
public final class NetServer: Sendable {
    /// The configuration the server was made with.
    public let configuration: NetServerConfiguration
    /// Live counters for a metrics endpoint.
    public let metrics = NetMetrics()
    private let http: HTTPHandler
    private let webSocket: WebSocketHandler?
    fileprivate let state = Mutex(Running())

    fileprivate struct Running {
        var loop: EventLoop?
        var engine: ServerEngine?
        var port = 0
        var stopped = false
    }

    /// A server that is not listening yet.
    public init(
        configuration: NetServerConfiguration = NetServerConfiguration(), http: @escaping HTTPHandler,
        webSocket: WebSocketHandler? = nil
    ) {
        self.configuration = configuration
        self.http = http
        self.webSocket = webSocket
    }

    /// Binds and starts serving; returns the real port (useful with port 0). Throws when it cannot listen.
    @discardableResult
    public func start() throws -> Int {
        try state.withLock { state -> Int in
            if state.loop != nil { return state.port }
            if state.stopped { throw NetError.notRunning("this server was shut down; make a new one") }
            let executor = LoopExecutor()
            let engine = ServerEngine(
                executor: executor, metrics: metrics, configuration: configuration, http: http, webSocket: webSocket)
            var options = EventLoopOptions()
            options.port = configuration.port
            options.host = configuration.host
            options.tickSeconds =
                Keepalive(pingSeconds: configuration.pingIntervalSeconds, idleSeconds: configuration.idleTimeoutSeconds)
                .tickSeconds
            options.keepAliveSeconds = configuration.keepAliveSeconds
            options.timeoutSeconds = configuration.requestTimeoutSeconds
            let loop = try EventLoop(
                options: options, executor: executor,
                handle: { arguments in engine.assumeIsolated { $0.handle(arguments) } },
                // The sweep runs inside lws's service (via the executor's wake-up), because lws only
                // re-arms its timers and pollfds from there; from a bare libev timer a timeout or
                // writable request set by the sweep could wait for unrelated traffic.
                tick: { executor.post { engine.assumeIsolated { $0.tick() } } })
            loop.start()
            state.loop = loop
            state.engine = engine
            state.port = loop.port
            return loop.port
        }
    }

    /// The port being listened on (0 before `start()`).
    public var port: Int { state.withLock { $0.port } }

    /// Starts if needed and serves until `shutdown()` or until the calling task is cancelled.
    public func run() async throws {
        try start()
        guard let loop = state.withLock({ $0.loop }) else { return }
        await withTaskCancellationHandler {
            await loop.waitUntilFinished()
        } onCancel: {
            Task { await self.shutdown() }
        }
    }

    /// Closes every WebSocket with 1001, waits up to the grace period for their handshakes, then
    /// closes all remaining connections and the listener. `run()` returns afterwards.
    public func shutdown() async {
        let (loop, engine) = state.withLock { state -> (EventLoop?, ServerEngine?) in
            state.stopped = true
            return (state.loop, state.engine)
        }
        guard let loop, let engine else { return }
        if !loop.isFinished {
            let open = await engine.closeAllWebSockets(code: 1001, reason: "server shutting down")
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

    /// Number of lws connections the server still tracks (for leak checks in tests).
    var trackedSessions: Int {
        get async {
            guard let engine = state.withLock({ $0.engine }) else { return 0 }
            return await engine.sessionCount
        }
    }
}

extension NetServer {
    /// True when called on this server's lws loop thread (tests check handlers never run there).
    var isOnLoopThread: Bool {
        state.withLock { $0.engine }?.executor.isOnLoopThread ?? false
    }
}
