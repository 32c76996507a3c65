import Foundation
import HailNet
import HailProcess
import HailScale

/// `hail bench ingest`: N drivers online, each on its own driver stream sending location batches and
/// awaiting acks; measures acknowledged fixes per second and send-to-ack latency.
public struct IngestBenchmark: Sendable {
    /// Driver connections.
    public var connections = 100
    /// How long to send.
    public var seconds = 10
    /// When each driver sends.
    public var pacing = IngestPacing.interval(milliseconds: 3_000)
    /// Fixes per batch.
    public var pointsPerBatch = 3
    /// Binary frames instead of JSON text.
    public var binary = false
    /// Share of drivers put on an active trip with a rider watching it (0 to 1).
    public var riderShare = 0.1
    /// The `hail` executable whose `server` the run starts as children: by default this very executable (`hail bench`); tests give
    /// the one built beside them.
    public var hailExecutable = ServerChild.thisExecutable

    /// The defaults: 100 drivers for 10 s, a batch of 3 fixes every 3 s each, JSON, a tenth watched.
    public init() {}

    /// Connections per 127.0.0.x source address when the server is on loopback: well under the
    /// ~28,000 ephemeral ports one source address has, leaving room for TIME_WAIT from earlier runs.
    static let connectionsPerSourceAddress = 1_000
    /// WebSocket handshakes in flight at once while connecting.
    static let connectConcurrency = 64
    /// How far in the past the drivers' fix timelines start: a week of fixes at one a second.
    static let timelineHeadroomMilliseconds: Int64 = 7 * 86_400 * 1000
    /// WebSocket client loops (threads) the drivers' sockets are spread over: one per core.
    static let clientLoops = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// How long a busy client loop gathers ready sockets before polling again (the server's default too).
    static let ioCoalescing = Duration.microseconds(500)
    /// How often each client loop's pacer sends what is due: a batch leaves within about this long of its time.
    static let pacerTick = Duration.milliseconds(1)
    /// How long after the window the drivers wait for outstanding acks.
    static let grace = Duration.seconds(3)

    /// One server the drivers and riders use.
    struct Node: Sendable {
        /// Where it listens (it must be able to mint tokens).
        let target: BenchTarget
        /// The child process behind `target`, whose CPU and memory are read too; nil in-process or remote.
        let server: ServerProcess?
    }

    /// The scaled mode's shared PostgreSQL and Redis, read at the window's edges to count their work.
    struct Backends: Sendable {
        /// The nodes' Redis.
        let redis: RedisClient
        /// The nodes' PostgreSQL.
        let postgres: PostgresPool
    }

    /// The node driver `index` streams to: drivers in equal blocks over the nodes, so the watched ones (spread
    /// evenly over the indices) are spread over the nodes too.
    static func driverNode(_ index: Int, connections: Int, nodes: Int) -> Int {
        index * nodes / max(1, connections)
    }

    /// The node the rider of a driver on `driverNode` watches from: the next one, so with two or more nodes
    /// every position crosses from one node to another through Redis.
    static func riderNode(of driverNode: Int, nodes: Int) -> Int { (driverNode + 1) % nodes }

    /// Runs against `target` (which must be able to mint driver tokens).
    /// `server`, when given, is the child process behind `target`: its CPU and memory are read too.
    func run(on target: BenchTarget, server: ServerProcess? = nil) async throws(BenchError) -> IngestBenchmarkResult {
        try await run(on: [Node(target: target, server: server)])
    }

    /// Runs against `nodes`: one node, or several on the same PostgreSQL and Redis (`backends`) with drivers on
    /// every node and each rider on another node than its driver's.
    func run(on nodes: [Node], backends: Backends? = nil) async throws(BenchError) -> IngestBenchmarkResult {
        let target = nodes[0].target
        let runTag = String(UUID().uuidString.prefix(8)).lowercased()
        let machine = BenchMachine.current()
        // The drivers' timelines start a week ago: a saturating run sends fixes faster than real time, and
        // a timeline starting now would soon run past the server's clock, whose filter drops fixes more
        // than 5 minutes ahead of it as `future`.
        let startMilliseconds = Int64(Date().timeIntervalSince1970 * 1000) - Self.timelineHeadroomMilliseconds
        let factories = (0..<connections).map {
            LocationFrameFactory(index: $0, pointsPerBatch: pointsPerBatch, startMilliseconds: startMilliseconds)
        }
        try factories[0].selfCheck()
        let tokens = (0..<connections).map { target.token(role: .driver, subject: "bench-\(runTag)-driver-\($0)") }
        let nodeOf = (0..<connections).map { Self.driverNode($0, connections: connections, nodes: nodes.count) }
        let metricsToken = target.token(role: .operator, subject: "bench-\(runTag)-metrics")
        var countersBefore: [ServerCounters?] = []
        for node in nodes {
            countersBefore.append(await ServerCounters.scrape(node.target.endpoint, token: metricsToken))
        }
        for (number, node) in nodes.enumerated() {
            let indices = nodeOf.indices.filter { nodeOf[$0] == number }
            try await goOnline(tokens: indices.map { tokens[$0] }, endpoint: node.target.endpoint)
        }

        let client: WebSocketClient
        var clients: [WebSocketClient] = []
        do {
            // The server pings every stream; the client's own keepalive is off because, holding thousands
            // of streams on a loaded machine, it dropped healthy ones ("no traffic or pong for 60 s").
            var configuration = WebSocketClientConfiguration()
            configuration.pingIntervalSeconds = 0
            // Thousands of streams on each loop: a poll should return a batch of acks, as on the server.
            configuration.ioCoalescing = Self.ioCoalescing
            // One client loop per core, like the server's: the drivers' sockets are spread over them.
            // Client i pinned like server loop i: the kernel gives each connection to the server loop on the core
            // that sent its SYN, so both ends of every connection share a core (the server's default placement).
            clients = try (0..<Self.clientLoops).map { index in
                var pinned = configuration
                pinned.pinnedLoop = index
                return try WebSocketClient(configuration: pinned)
            }
            client = clients[0]
        } catch {
            throw BenchError("cannot start the WebSocket client: \(error)")
        }
        let watched = watchedDrivers()
        var setup: (pairs: [TripSetup.Pair], failures: [String]) = ([], [])
        for (number, node) in nodes.enumerated() {
            let riderTarget =
                nodes.count == 1 ? node.target : nodes[Self.riderNode(of: number, nodes: nodes.count)].target
            let onNode = await TripSetup(
                target: node.target, riderTarget: riderTarget, runTag: runTag, client: client,
                startMilliseconds: startMilliseconds
            ).run(
                drivers: watched.filter { nodeOf[$0] == number }.map {
                    (index: $0, token: tokens[$0], factory: factories[$0])
                })
            setup.pairs += onNode.pairs
            setup.failures += onNode.failures
        }
        let logs = Dictionary(uniqueKeysWithValues: setup.pairs.map { ($0.driverIndex, SendLog()) })
        let sources = sourceAddresses(for: target.endpoint)
        let connected = await connectAll(
            clients: clients, tokens: tokens, endpoints: nodeOf.map { nodes[$0].target.endpoint }, sources: sources)
        guard connected.contains(where: { $0.connection != nil }) else {
            for client in clients { await client.shutdown() }
            throw BenchError(
                "no driver stream connected: \(connected.compactMap(\.failure).first ?? "unknown reason")")
        }

        let clock = ContinuousClock()
        let start = clock.now + .milliseconds(200)
        let end = start + .seconds(seconds)
        var sessions: [DriverSession] = []
        var sessionsByLoop = [[(index: Int, session: DriverSession)]](repeating: [], count: clients.count)
        for (index, slot) in connected.enumerated() {
            guard let connection = slot.connection else { continue }
            let session = DriverSession(
                connection: connection, frames: factories[index], binary: binary, pacing: pacing,
                ledger: AckLedger(windowEnd: end), log: logs[index])
            slot.reader.fill(session, sendUntil: end)
            sessions.append(session)
            // `connectAll` put driver `index` on client loop `index % clients.count`.
            sessionsByLoop[index % clients.count].append((index, session))
        }
        if case .interval(let milliseconds) = pacing {
            // Each client loop sends its own drivers' batches from a repeating task on that loop.
            for (loop, client) in clients.enumerated() {
                let pacer = IngestPacer(
                    sessions: sessionsByLoop[loop], total: connections, interval: .milliseconds(milliseconds),
                    start: start, end: end)
                client.scheduleRepeated(every: Self.pacerTick) { pacer.sendDue(at: clock.now) }
            }
        }
        let books = RiderWatch.Books()
        let watches = setup.pairs.compactMap { pair in
            logs[pair.driverIndex].map { RiderWatch(connection: pair.rider, log: $0) }
        }
        let usage = await withTaskGroup(of: WindowReadings?.self) { group in
            for watch in watches {
                group.addTask {
                    await watch.run(windowStart: start, windowEnd: end, books: books)
                    return nil
                }
            }
            if !watches.isEmpty {
                group.addTask {
                    // A rider whose trip went quiet would wait for ever: its stream closes after the grace.
                    try? await Task.sleep(until: end + Self.grace, clock: clock)
                    for watch in watches { watch.connection.close(code: 1000, reason: "bench done") }
                    return nil
                }
            }
            group.addTask { [sessions, pacing] in
                try? await Task.sleep(until: start, clock: clock)
                if case .saturate(let window) = pacing {
                    // The ack readers send the rest, one per ack, until the window closes.
                    for session in sessions { for _ in 0..<window { session.send(at: clock.now) } }
                }
                // The last acks: every driver's, or the grace is over.
                try? await Task.sleep(until: end, clock: clock)
                let giveUp = end + Self.grace
                while clock.now < giveUp,
                    sessions.contains(where: { $0.ledger.inFlight > 0 && $0.connection.closeInfo == nil })
                {
                    try? await Task.sleep(for: .milliseconds(20))
                }
                for session in sessions { session.connection.close(code: 1000, reason: "bench done") }
                return nil
            }
            group.addTask {
                try? await Task.sleep(until: start, clock: clock)
                var readings = WindowReadings()
                readings.generator.before = ProcessUsage.current()
                readings.nodes = nodes.map { (before: $0.server?.usage(), after: nil) }
                if let backends {
                    readings.backendsBefore = try? await BackendCounters.read(
                        redis: backends.redis, postgres: backends.postgres)
                }
                try? await Task.sleep(until: end, clock: clock)
                readings.generator.after = ProcessUsage.current()
                for (index, node) in nodes.enumerated() { readings.nodes[index].after = node.server?.usage() }
                if let backends {
                    readings.backendsAfter = try? await BackendCounters.read(
                        redis: backends.redis, postgres: backends.postgres)
                }
                return readings
            }
            var readings = WindowReadings()
            for await result in group { if let result { readings = result } }
            return readings
        }
        var tally = AckLedger.Tally()
        for session in sessions { tally.absorb(session.ledger.tally()) }
        for pair in setup.pairs { pair.rider.close(code: 1000, reason: "bench done") }
        // Before shutdown: tells whether a missing ack was never written by us or never came back.
        let snapshots = clients.map { $0.metrics.snapshot() }
        let wire = (
            messagesSent: snapshots.reduce(0) { $0 + $1.messagesSent },
            messagesReceived: snapshots.reduce(0) { $0 + $1.messagesReceived }
        )
        for client in clients { await client.shutdown() }
        var serverCounts: [String: Int]?
        var ingestRounds = (roundTrips: 0, writes: 0)
        for (index, node) in nodes.enumerated() {
            // Counted only when every node answered, so the sum is never a part passed off as the whole.
            guard let before = countersBefore[index],
                let after = await ServerCounters.scrape(node.target.endpoint, token: metricsToken)
            else {
                serverCounts = nil
                break
            }
            serverCounts = (serverCounts ?? [:]).merging(after.since(before), uniquingKeysWith: +)
            let rounds = after.redisIngestSince(before)
            ingestRounds = (ingestRounds.roundTrips + rounds.roundTrips, ingestRounds.writes + rounds.writes)
        }
        var backendCounts: BackendCounters?
        if let before = usage.backendsBefore, let after = usage.backendsAfter { backendCounts = after.since(before) }
        return IngestBenchmarkResult(
            settings: self, target: target, connected: sessions.count,
            connectFailures: connected.compactMap(\.failure), sourceAddresses: sources, tally: tally,
            wire: (written: wire.messagesSent, read: wire.messagesReceived),
            serverCounts: serverCounts, before: usage.generator.before, after: usage.generator.after,
            nodes: usage.nodes, backends: backendCounts,
            ingestRounds: serverCounts == nil ? nil : ingestRounds,
            riders: IngestBenchmarkResult.Riders(
                asked: watched.count, watching: setup.pairs.count, setupFailures: Array(setup.failures.prefix(5)),
                books: books.totals),
            machine: machine)
    }

    /// The drivers put on a trip: `riderShare` of them, evenly spread over the grid.
    func watchedDrivers() -> [Int] {
        let count = min(connections, Int((Double(connections) * max(0, min(1, riderShare))).rounded()))
        guard count > 0 else { return [] }
        return (0..<count).map { $0 * connections / count }
    }

    /// The 127.0.0.x addresses to spread connections over, or none (let the kernel choose).
    func sourceAddresses(for endpoint: HTTPEndpoint) -> [String] {
        guard endpoint.isLoopback, connections > Self.connectionsPerSourceAddress else { return [] }
        let count = min(250, (connections + Self.connectionsPerSourceAddress - 1) / Self.connectionsPerSourceAddress)
        return (0..<count).map { "127.0.0.\($0 + 2)" }
    }

    /// `POST /v1/drivers/me/status {"online":true}` for every driver, over a few keep-alive connections.
    func goOnline(tokens: [String], endpoint: HTTPEndpoint) async throws(BenchError) {
        let threads = min(8, tokens.count)
        let body = Array(#"{"online":true}"#.utf8)
        let problems = await BlockingThreads.run(count: threads) { thread -> String? in
            var connection: HTTPConnection?
            for index in stride(from: thread, to: tokens.count, by: threads) {
                let request = HTTPRequestBytes.make(
                    method: "POST", path: "/v1/drivers/me/status", authority: endpoint.authority,
                    headers: [("Authorization", "Bearer \(tokens[index])"), ("Content-Type", "application/json")],
                    body: body)
                do throws(HTTPExchangeError) {
                    if connection == nil { connection = try HTTPConnection(to: endpoint) }
                    let reply = try connection!.exchange(request)
                    guard reply.status == 200 else {
                        return "HTTP \(reply.status): \(String(decoding: reply.body.prefix(300), as: UTF8.self))"
                    }
                    if reply.closes { connection = nil }
                } catch {
                    return error.label
                }
            }
            return nil
        }
        if let problem = problems.compactMap({ $0 }).first {
            throw BenchError(
                "POST /v1/drivers/me/status failed (\(problem)); does --secret-file hold what signs the server's "
                    + "tokens (a scaled node's signing key, an embedded one's secret)?")
        }
    }

    /// One slot per driver: its open connection or why it failed.
    struct Slot: Sendable {
        /// The open driver stream.
        var connection: WebSocketConnection?
        /// Why the connection failed.
        var failure: String?
        /// Where the stream's ack reader finds its driver.
        var reader = DriverSessionSlot()
    }

    /// What was read at the window's start and end: CPU and memory of the generator and each node, and the
    /// backends' counters.
    struct WindowReadings: Sendable {
        /// This process.
        var generator: (before: ProcessUsage?, after: ProcessUsage?) = (nil, nil)
        /// Each node's child process, in node order.
        var nodes: [(before: ProcessUsage?, after: ProcessUsage?)] = []
        /// PostgreSQL's and Redis's counters at the start.
        var backendsBefore: BackendCounters?
        /// And at the end.
        var backendsAfter: BackendCounters?
    }

    /// Opens every driver stream (driver `i` to `endpoints[i]`), `connectConcurrency` handshakes at a time.
    private func connectAll(
        clients: [WebSocketClient], tokens: [String], endpoints: [HTTPEndpoint], sources: [String]
    ) async -> [Slot] {
        await withTaskGroup(of: (Int, Slot).self) { group in
            var slots = [Slot](repeating: Slot(), count: tokens.count)
            var next = 0
            /// Starts the handshake of driver `index`.
            func launch(_ index: Int) {
                let token = tokens[index]
                let url = endpoints[index].webSocketBase + "/v1/drivers/me/live"
                let source = sources.isEmpty ? nil : sources[index % sources.count]
                group.addTask {
                    let reader = DriverSessionSlot()
                    do {
                        let connection = try await clients[index % clients.count].connect(
                            to: url, headers: [("Authorization", "Bearer \(token)")], localAddress: source,
                            handler: { _ in AckReader(slot: reader) })
                        return (index, Slot(connection: connection, reader: reader))
                    } catch {
                        return (index, Slot(failure: "\(error)"))
                    }
                }
            }
            while next < min(Self.connectConcurrency, tokens.count) {
                launch(next)
                next += 1
            }
            for await (index, slot) in group {
                slots[index] = slot
                if next < tokens.count {
                    launch(next)
                    next += 1
                }
            }
            return slots
        }
    }
}
