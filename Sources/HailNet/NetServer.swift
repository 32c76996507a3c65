import CLibWebSockets
import HailTime
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One HTTP/1.1 and WebSocket server on one port, over libwebsockets on libev loops.
///
/// `configuration.loopCount` loops (one per core by default) each own an lws context. The first loop holds the
/// one listening socket; each connection it accepts goes to the loop holding fewest connections (`LoopPlacement`),
/// adopted there on that loop's own thread, and lives on that loop thread for its whole life. Every HTTP request goes to the `respond` front on its loop, which answers at once
/// or hands back a task that runs there too (`HTTPAnswer`); every WebSocket upgrade (any path) goes to `webSocket`
/// on the cooperative pool, and a `.handle` decision then reads its WebSocket on its loop. Use `start()` +
/// `shutdown()`, or `run()` until cancelled.
public final class NetServer: Sendable {
    /// The configuration the server was made with.
    public let configuration: NetServerConfiguration
    /// Live counters for a metrics endpoint (all loops together, and the connections each loop holds).
    public let metrics: NetMetrics
    private let respond: HTTPResponder
    private let webSocket: WebSocketHandler?
    fileprivate let state = Mutex(Running())

    fileprivate struct Running {
        var loops: [EventLoop] = []
        var engines: [ServerEngine] = []
        var port = 0
        var stopped = false
    }

    /// A server that is not listening yet, every request of which `http` answers as a task on its loop.
    public convenience init(
        configuration: NetServerConfiguration = NetServerConfiguration(), http: @escaping HTTPHandler,
        webSocket: WebSocketHandler? = nil
    ) {
        self.init(
            configuration: configuration, respond: { request in .later { await http(request) } }, webSocket: webSocket)
    }

    /// A server that is not listening yet, whose requests `respond` answers on their loop, at once or later.
    public init(
        configuration: NetServerConfiguration = NetServerConfiguration(), respond: @escaping HTTPResponder,
        webSocket: WebSocketHandler? = nil
    ) {
        self.configuration = configuration
        metrics = NetMetrics(loops: max(1, configuration.loopCount))
        self.respond = respond
        self.webSocket = webSocket
    }

    /// Binds and starts serving; returns the real port (useful with port 0). Throws when it cannot listen.
    @discardableResult
    public func start() throws -> Int {
        try state.withLock { state -> Int in
            if !state.loops.isEmpty { return state.port }
            if state.stopped { throw NetError.notRunning("this server was shut down; make a new one") }
            let count = max(1, configuration.loopCount)
            var loops: [EventLoop] = []
            var engines: [ServerEngine] = []
            var port = configuration.port
            do {
                for index in 0..<count {
                    let (loop, engine) = try makeLoop(index: index, port: port, shared: count > 1)
                    if index == 0 { port = loop.port }
                    loops.append(loop)
                    engines.append(engine)
                }
            } catch {
                for loop in loops { loop.requestStop() }
                throw error
            }
            place(acceptedOn: loops[0], over: loops)
            for loop in loops { loop.start() }
            if configuration.heapTrimChurn > 0 { trimHeapAfterBursts(on: loops[0]) }
            state.loops = loops
            state.engines = engines
            state.port = port
            return port
        }
    }

    /// Has `acceptor`, the loop holding the listening socket, place each connection it accepts on the loop pinned to
    /// the core its packets arrive on, or on the loop holding fewest when that one is ahead (`LoopPlacement`):
    /// adopted at once when that is itself, otherwise posted to that loop, which adopts it
    /// on its own thread (a batch of posts is one wake-up of that loop). A connection whose adoption fails is
    /// counted off at once; one adopted is counted off when lws destroys it (`ServerEngine`).
    private func place(acceptedOn acceptor: EventLoop, over loops: [EventLoop]) {
        let metrics = metrics
        // The loop pinned to each core (the first, when loops share cores); none when loops are not pinned.
        var loopOnCore: [Int: Int] = [:]
        if configuration.pinsLoops {
            for index in loops.indices.reversed() {
                if let core = EventLoopOptions.core(forLoop: index) { loopOnCore[core] = index }
            }
        }
        acceptor.onAccept { [loopOnCore] fd in
            let preferred = IncomingCPU.of(fd).flatMap { loopOnCore[$0] }
            let target = metrics.placement.withLock { $0.place(preferring: preferred) }
            let loop = loops[target]
            guard loop !== acceptor else {
                if !loop.adopt(fd) { metrics.placement.withLock { $0.release(on: target) } }
                return
            }
            loop.executor.post {
                if !loop.adopt(fd) { metrics.placement.withLock { $0.release(on: target) } }
            }
        }
    }

    private func makeLoop(index: Int, port: Int, shared: Bool) throws -> (EventLoop, ServerEngine) {
        let executor = LoopExecutor()
        let metrics = metrics
        let engine = ServerEngine(
            executor: executor, metrics: metrics, configuration: configuration, respond: respond, webSocket: webSocket,
            connectionEnded: { metrics.placement.withLock { $0.release(on: index) } },
            connectionsChanged: { [weak self] count in self?.loop(at: index)?.connectionsChanged(to: count) })
        var options = EventLoopOptions()
        options.port = port
        options.listens = index == 0
        options.host = configuration.host
        options.threadName = shared ? "hail-lws-\(index)" : "hail-lws"
        options.tickSeconds =
            Keepalive(pingSeconds: configuration.pingIntervalSeconds, idleSeconds: configuration.idleTimeoutSeconds)
            .tickSeconds
        options.keepAliveSeconds = configuration.keepAliveSeconds
        options.ioCollectSeconds = configuration.ioCoalescing.timeInterval
        options.ioCollectFromConnections = max(0, configuration.ioCoalescingFromConnections)
        if configuration.pinsLoops { options.cpu = EventLoopOptions.core(forLoop: index) }
        options.timeoutSeconds = configuration.requestTimeoutSeconds
        let loop = try EventLoop(
            options: options, executor: executor,
            handle: { arguments in engine.assumeIsolated { $0.handle(arguments) } },
            // The sweep runs inside lws's service (via the executor's wake-up), because lws only
            // re-arms its timers and pollfds from there; from a bare libev timer a timeout or
            // writable request set by the sweep could wait for unrelated traffic.
            tick: { executor.post { engine.assumeIsolated { $0.tick() } } })
        return (loop, engine)
    }

    /// Loop `index` once the server has started (nil while it starts: a count reported then is caught up by the next).
    private func loop(at index: Int) -> EventLoop? {
        state.withLock { $0.loops.indices.contains(index) ? $0.loops[index] : nil }
    }

    /// The port being listened on (0 before `start()`).
    public var port: Int { state.withLock { $0.port } }

    /// Checks every 2 s, on `loop`, whether a burst of connections has come and gone, and if so trims malloc's
    /// free pages on the cooperative pool (it walks every arena: a few milliseconds no loop should wait for).
    private func trimHeapAfterBursts(on loop: EventLoop) {
        let policy = Mutex(HeapTrimPolicy(churnThreshold: configuration.heapTrimChurn, settledBelow: 100))
        let metrics = metrics
        loop.scheduleRepeated(every: .seconds(2)) {
            let churn =
                metrics.acceptedConnections.load(ordering: .relaxed) + metrics.totalConnections.load(ordering: .relaxed)
                - metrics.openConnections.load(ordering: .relaxed)
            if policy.withLock({ $0.check(churn: churn) }) {
                Task.detached(priority: .background) { _ = hail_malloc_trim() }
            }
            return true
        }
    }

    /// Starts if needed and serves until `shutdown()` or until the calling task is cancelled.
    public func run() async throws {
        try start()
        let loops = state.withLock { $0.loops }
        guard !loops.isEmpty else { return }
        await withTaskCancellationHandler {
            for loop in loops { await loop.waitUntilFinished() }
        } onCancel: {
            Task { await self.shutdown() }
        }
    }

    /// Stops taking connections (a drain): the listener is shut down, so a connect is refused and a
    /// balancer tries another node; the connections already open go on, and from now on each HTTP response says
    /// `Connection: close` and ends its connection.
    public func stopAccepting() async {
        let (loops, engines) = state.withLock { ($0.loops, $0.engines) }
        for (loop, engine) in zip(loops, engines) where !loop.isFinished {
            await loop.stopListening()
            await engine.closeAfterEachResponse()
        }
    }

    /// Every WebSocket open now, over all loops.
    public func openWebSockets() async -> [WebSocketConnection] {
        let (loops, engines) = state.withLock { ($0.loops, $0.engines) }
        var open: [WebSocketConnection] = []
        for (loop, engine) in zip(loops, engines) where !loop.isFinished { open += await engine.webSockets() }
        return open
    }

    /// Closes every WebSocket with `code` (1001 by default), waits up to the grace period for their handshakes,
    /// then closes all remaining connections and the listener. `run()` returns afterwards.
    public func shutdown(code: UInt16 = 1001, reason: String = "server shutting down") async {
        let (loops, engines) = state.withLock { state -> ([EventLoop], [ServerEngine]) in
            state.stopped = true
            return (state.loops, state.engines)
        }
        guard !loops.isEmpty else { return }
        var open: [WebSocketConnection] = []
        for (loop, engine) in zip(loops, engines) where !loop.isFinished {
            open += await engine.closeAllWebSockets(code: code, reason: reason)
        }
        if !open.isEmpty {
            let grace = configuration.shutdownGraceSeconds
            await withTaskGroup(of: Void.self) { [open] group in
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
        for loop in loops { loop.requestStop() }
        for loop in loops { await loop.waitUntilFinished() }
    }

    /// Number of lws connections the server still tracks (for leak checks in tests).
    var trackedSessions: Int {
        get async {
            var total = 0
            for engine in state.withLock({ $0.engines }) { total += await engine.sessionCount }
            return total
        }
    }
}

extension NetServer {
    /// True when called on one of this server's lws loop threads (tests check handlers never run there).
    var isOnLoopThread: Bool {
        state.withLock { $0.engines }.contains { $0.executor.isOnLoopThread }
    }
}

extension NetServer {
    /// The index of the loop whose thread is calling, nil off the loops (tests check where connections live).
    var currentLoopIndex: Int? {
        state.withLock { $0.engines }.firstIndex { $0.executor.isOnLoopThread }
    }
}
