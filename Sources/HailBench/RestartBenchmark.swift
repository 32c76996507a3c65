import Foundation
import HailNet
import HailProcess
import HailScale
import HailServer

/// `hail bench restarts`: two scaled `hail server` nodes (PostgreSQL and Redis in a schema and key prefix of the
/// run's own) behind a throwaway nginx, drivers streaming a batch a second and riders watching their trips through
/// it; (a) a rolling restart (node 1 drained with SIGTERM, started again, ready; then node 2), (b) a SIGKILL of the
/// node holding the streams. Reports acknowledged batches lost, trip events lost or doubled, the riders' longest
/// gap without a position, and the time until every stream is back and acknowledged after the kill.
public struct RestartBenchmark: Sendable {
    /// Driver streams.
    public var drivers = 8_000
    /// Riders, each watching the trip of one driver.
    public var riders = 800
    /// The shared PostgreSQL (the run works in a schema of its own, dropped at the end).
    public var postgres: String
    /// The shared Redis (the run's keys under a prefix of its own; they expire within a day).
    public var redis: String
    /// Steady streaming before each phase and after it, seconds.
    public var settleSeconds = 10
    /// The nodes' `--drain-grace-seconds` (nginx OSS probes no `/readyz`: the grace buys it nothing).
    public var drainGrace = 1.0
    /// The nodes' `--drain-spread-seconds`.
    public var drainSpread = 5.0
    /// The nodes' `--drain-rate`: streams a second a draining node sends the other at most.
    public var drainRate = 400.0
    /// The nodes' `--drain-seconds`.
    public var drainBound = 30.0
    /// Runs the rolling restart before the kill; false runs the kill alone: node 2 starts only once every stream is
    /// on node 1 (a node holding them all, as after a roll, in a third of the time).
    public var rolling = true
    /// The `hail` executable whose `server` runs the nodes.
    public var hailExecutable = ServerChild.thisExecutable

    /// The defaults (8,000 drivers, 800 riders) on these backends.
    public init(postgres: String, redis: String) {
        self.postgres = postgres
        self.redis = redis
    }

    /// Runs both phases and stops everything it started, on success or not.
    public func run() async throws(BenchError) -> RestartBenchmarkResult {
        guard drivers >= 1, riders >= 0, riders <= drivers else {
            throw .invalidOption("--riders must be between 0 and --drivers")
        }
        let descriptors = FileDescriptorLimit.raiseToMaximum()
        guard drivers + riders + IngestBenchmark.descriptorReserve <= descriptors else {
            throw .invalidOption(
                "\(drivers) drivers and \(riders) riders need about \(drivers + riders + 200) open files; this process"
                    + " may have \(descriptors) (ulimit -n)")
        }
        signal(SIGPIPE, SIG_IGN)
        let tag = String(UUID().uuidString.prefix(8)).lowercased()
        let schema = "hail_bench_restarts_\(tag)"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hail-bench-restarts-\(tag)", isDirectory: true)
        do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            throw BenchError("cannot create \(directory.path): \(error)")
        }
        let secretFile = directory.appendingPathComponent("hail.secret").path
        // The deployment's secret and key set, made before the nodes start: a --postgres/--redis node never creates
        // its secret, and takes access tokens only as JWTs of its --jwks.
        let key: DeploymentKey
        do {
            _ = try ServerSecret.loadOrCreate(at: secretFile)
            key = try DeploymentKey.create(in: directory.path)
        } catch {
            throw BenchError("cannot make the nodes' secret or keys: \(error)")
        }
        let arguments = [
            "--host", "127.0.0.1", "--db", directory.appendingPathComponent("unused.db").path, "--secret-file",
            secretFile, "--jwks", key.jwksPath, "--quiet", "--postgres", postgres, "--redis", redis,
            "--postgres-schema", schema,
            "--redis-prefix", schema + ":", "--no-rate-limits", "--loops", "1",
            "--drain-grace-seconds", "\(drainGrace)", "--drain-spread-seconds", "\(drainSpread)",
            "--drain-rate", "\(drainRate)", "--drain-seconds", "\(drainBound)",
        ]
        let cores = ProcessorAffinity.allowed
        var nodes: [RestartNode] = []
        for number in 0..<2 {
            guard let port = try? ServerChild.freeLoopbackPort() else { throw BenchError("no free loopback port") }
            nodes.append(
                RestartNode(
                    executable: hailExecutable, arguments: arguments, port: port,
                    processors: cores.isEmpty ? [] : [cores[number % cores.count]], directory: directory))
        }
        var front: RestartFront?
        do throws(BenchError) {
            for node in nodes { try await node.start() }
            front = try await RestartFront.start(upstreams: nodes.map(\.port), connections: drivers + riders + 200)
            let result = try await measure(nodes: nodes, front: front!, tokenFile: key.privateKeyPath, tag: tag)
            await cleanUp(nodes: nodes, front: front, schema: schema, directory: directory)
            return result
        } catch {
            await cleanUp(nodes: nodes, front: front, schema: schema, directory: directory)
            throw error
        }
    }

    private func cleanUp(nodes: [RestartNode], front: RestartFront?, schema: String, directory: URL) async {
        await front?.stop()
        for node in nodes { await node.stop() }
        if let pool = try? await PostgresPool.connect(url: postgres, size: 1, migrations: []) {
            _ = try? await pool.run { try $0.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
            pool.close()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Everything between the nodes' start and their stop.
    private func measure(nodes: [RestartNode], front: RestartFront, tokenFile: String, tag: String)
        async throws(BenchError) -> RestartBenchmarkResult
    {
        let target = try BenchTarget.remote(url: "http://127.0.0.1:\(front.port)", secretFile: tokenFile)
        let machine = BenchMachine.current()
        let startMilliseconds =
            Int64(Date().timeIntervalSince1970 * 1000) - IngestBenchmark.timelineHeadroomMilliseconds
        var shape = IngestBenchmark()
        shape.connections = drivers
        shape.riderShare = Double(riders) / Double(drivers)
        let watched = riders == 0 ? [] : shape.watchedDrivers()
        // A driver on a trip waits near its pickup, so its `arrived` and `started` taps are weighed as a driver
        // there (issue 41's guard refuses them 150 m away); the others drive their 12 km street.
        let nearPickup = Set(watched)
        let factories = (0..<drivers).map {
            LocationFrameFactory(
                index: $0, pointsPerBatch: 1, startMilliseconds: startMilliseconds,
                legFixes: nearPickup.contains($0)
                    ? LocationFrameFactory.pickupLegFixes : LocationFrameFactory.streetLegFixes)
        }
        let driverIDs = (0..<drivers).map { "bench-\(tag)-driver-\($0)" }
        let tokens = driverIDs.map { target.token(role: .driver, subject: $0) }
        try await shape.goOnline(tokens: tokens, endpoint: front.endpoint)

        var configuration = WebSocketClientConfiguration()
        configuration.pingIntervalSeconds = 0
        configuration.ioCoalescing = IngestBenchmark.ioCoalescing
        let clients: [WebSocketClient]
        do {
            clients = try (0..<IngestBenchmark.clientLoops).map { index in
                var pinned = configuration
                pinned.pinnedLoop = index
                return try WebSocketClient(configuration: pinned)
            }
        } catch {
            throw BenchError("cannot start the WebSocket client: \(error)")
        }

        // Trips first, in parallel groups: each driver's offer arrives on a short-lived stream of its own.
        let groups = 16
        let setup = await withTaskGroup(of: (pairs: [TripSetup.Pair], failures: [String]).self) { group in
            for part in 0..<groups {
                let mine = watched.enumerated().filter { $0.offset % groups == part }.map(\.element)
                group.addTask {
                    await TripSetup(
                        target: target, riderTarget: target, runTag: tag, client: clients[part % clients.count],
                        startMilliseconds: startMilliseconds
                    ).run(drivers: mine.map { (index: $0, token: tokens[$0], factory: factories[$0]) })
                }
            }
            var all: (pairs: [TripSetup.Pair], failures: [String]) = ([], [])
            for await part in group {
                all.pairs += part.pairs
                all.failures += part.failures
            }
            return all
        }
        for pair in setup.pairs { pair.rider.close(code: 1000, reason: "the bench's rider takes over") }

        let sources = shape.sourceAddresses(for: front.endpoint)
        let url = front.endpoint.webSocketBase + "/v1/drivers/me/live"
        let movers = (0..<drivers).map { index in
            MovingDriver(
                index: index, token: tokens[index], frames: factories[index], url: url,
                source: sources.isEmpty ? nil : sources[index % sources.count],
                client: clients[index % clients.count])
        }
        await forEach(movers, concurrency: IngestBenchmark.connectConcurrency) { await $0.connect() }
        let watchers = setup.pairs.map { pair in
            MovingRider(
                index: pair.driverIndex, tripID: pair.tripID,
                token: target.token(role: .rider, subject: "bench-\(tag)-rider-\(pair.driverIndex)"),
                base: front.endpoint.webSocketBase, client: clients[pair.driverIndex % clients.count])
        }
        await forEach(watchers, concurrency: IngestBenchmark.connectConcurrency) { await $0.connect() }
        let connected = movers.filter(\.isConnected).count

        // A batch a second per driver, driver i at i/N of each second, from its client loop.
        let clock = ContinuousClock()
        let start = clock.now + .milliseconds(100)
        var pacers: [SecondPacer] = []
        for (loop, client) in clients.enumerated() {
            let pacer = SecondPacer(
                drivers: movers.enumerated().filter { $0.offset % clients.count == loop }.map {
                    ($0.element, Duration.seconds(1) * $0.offset / max(1, drivers))
                }, start: start)
            client.scheduleRepeated(every: .milliseconds(5)) { pacer.sendDue(at: clock.now) && !pacer.stopped }
            pacers.append(pacer)
        }
        try? await Task.sleep(for: .seconds(settleSeconds))

        let ownPID = getpid()
        let cpu = RoleCPU { [nodes, front] in
            [("load generator", [ownPID]), ("nginx", front.pids)]
                + nodes.enumerated().map { ("node \($0.offset + 1)", $0.element.pid.map { [$0] } ?? []) }
        }
        defer { cpu.stop() }
        let redisClient = RedisClient(endpoint: try redisEndpoint(), size: 1)
        defer { redisClient.close() }
        let redisStore = RedisDriverIngestStore(client: redisClient, prefix: "hail_bench_restarts_\(tag):hail:ingest")
        let tripRequest = TripTaps(target: target, driverTokens: tokens)

        // (a) Rolling restart.
        var rolling = RestartBenchmarkResult.Phase()
        if self.rolling {
            try await roll(
                nodes: nodes, phase: &rolling, watchers: watchers, movers: movers, pairs: setup.pairs,
                taps: tripRequest,
                riderToken: { target.token(role: .rider, subject: "bench-\(tag)-rider-\($0)") }, cpu: cpu,
                driverIDs: driverIDs, store: redisStore)
        } else {
            // Node 2 drained (its streams move to node 1) and started again, as the roll's second half leaves them.
            _ = await nodes[1].drain(bound: .seconds(Int64(drainBound)))
            try await nodes[1].start()
            try? await Task.sleep(for: RestartFront.rejoin + .seconds(1))
        }
        let frontBefore = front.errorCounts()

        // (b) SIGKILL of the node holding the streams: the last one drained sent its streams to the first.

        var kill = RestartBenchmarkResult.Phase()
        let killStart = clock.now
        let killCPU = cpu.totals()
        for watcher in watchers { watcher.startMeasuring(at: clock.now) }
        let closesBeforeKill = closeCounts(movers, watchers)
        let killAt = clock.now
        for mover in movers { mover.mark(killAt) }
        nodes[0].kill()
        kill.exits.append("signalled(9)")
        let waitEnd = killAt + .seconds(60)
        while clock.now < waitEnd, movers.contains(where: { $0.books.firstAckAfterMark == nil }) {
            try? await Task.sleep(for: .milliseconds(50))
        }
        let backTimes = movers.compactMap { $0.books.firstAckAfterMark.map { ($0 - killAt).timeInterval } }
        kill.driversNotBack = movers.count - backTimes.count
        kill.everyStreamBackSeconds = kill.driversNotBack == 0 ? backTimes.max() : nil
        Self.recovery(movers, since: killAt, into: &kill)
        kill.cpuPercent = RoleCPU.percent(from: killCPU, to: cpu.totals(), seconds: (clock.now - killAt).timeInterval)
        kill.frontErrors = Self.difference(front.errorCounts(), frontBefore)
        try await nodes[0].start()
        try? await Task.sleep(for: .seconds(settleSeconds))
        kill.seconds = (clock.now - killStart).timeInterval
        Self.gaps(watchers, into: &kill)
        kill.acknowledgedBatchesLost = await Self.lostBatches(movers, driverIDs: driverIDs, store: redisStore)
        kill.closes = Self.difference(closeCounts(movers, watchers), closesBeforeKill)

        for pacer in pacers { pacer.stop() }
        for mover in movers { mover.stop() }
        for watcher in watchers { watcher.stop() }
        for client in clients { await client.shutdown() }
        return RestartBenchmarkResult(
            drivers: drivers, driversConnected: connected, riders: riders, ridersWatching: watchers.count,
            drainGrace: drainGrace, drainSpread: drainSpread, drainRate: drainRate, drainBound: drainBound,
            rolling: rolling, kill: kill,
            setupFailures: Array(setup.failures.prefix(5)), machine: machine)
    }

    /// (a) The rolling restart: node 1 drained with SIGTERM (a tap in flight on every watched trip), started again
    /// and ready, then node 2; `settleSeconds` of steady streaming after.
    private func roll(
        nodes: [RestartNode], phase: inout RestartBenchmarkResult.Phase, watchers: [MovingRider],
        movers: [MovingDriver],
        pairs: [TripSetup.Pair], taps: TripTaps, riderToken: @escaping @Sendable (Int) -> String, cpu: RoleCPU,
        driverIDs: [String], store: RedisDriverIngestStore
    ) async throws(BenchError) {
        let clock = ContinuousClock()
        let start = clock.now
        let startCPU = cpu.totals()
        for watcher in watchers { watcher.startMeasuring(at: clock.now) }
        let closesBefore = closeCounts(movers, watchers)
        let versionsBefore = await taps.versions(pairs, riderToken: riderToken)
        var drainStarts: [ContinuousClock.Instant] = []
        for (node, tap) in zip(nodes, ["arrived", "started"]) {
            // Taps in flight while the node drains: the app's outbox retries what is not answered.
            let tapping = Task { await taps.tap(tap, pairs: pairs) }
            drainStarts.append(clock.now)
            phase.exits.append(await node.drain(bound: .seconds(Int64(drainBound))))
            try await node.start()
            phase.tapsFailed += await tapping.value
            // Ready, and settled before the next node drains (docs/DEPLOY.md, "Drain and rolling restarts").
            try? await Task.sleep(for: RestartFront.rejoin + .seconds(1))
        }
        try? await Task.sleep(for: .seconds(settleSeconds))
        phase.seconds = (clock.now - start).timeInterval
        phase.cpuPercent = RoleCPU.percent(from: startCPU, to: cpu.totals(), seconds: phase.seconds)
        let versionsAfter = await taps.versions(pairs, riderToken: riderToken)
        (phase.tripEventsLost, phase.tripEventsDoubled) = Self.tripEvents(
            watchers, before: versionsBefore, after: versionsAfter, taps: 2)
        Self.gaps(watchers, into: &phase)
        Self.moves(movers, watchers, into: &phase)
        Self.byDrain(movers, drainStarts: drainStarts, into: &phase)
        Self.tailCauses(movers, watchers, into: &phase)
        phase.acknowledgedBatchesLost = await Self.lostBatches(movers, driverIDs: driverIDs, store: store)
        phase.closes = Self.difference(closeCounts(movers, watchers), closesBefore)
    }

    /// How long the moves of a drain took: a driver's from its 4012 to its first ack on the next connection, a
    /// rider's from its 4012 to the first position on the next; and how many riders moved while their driver's own
    /// move was under way (their gaps add up).
    static func moves(
        _ movers: [MovingDriver], _ watchers: [MovingRider], into phase: inout RestartBenchmarkResult.Phase
    ) {
        func percentile(_ sorted: [Double], _ share: Double) -> Double? {
            sorted.isEmpty ? nil : sorted[min(sorted.count - 1, Int((Double(sorted.count) * share).rounded(.up)) - 1)]
        }
        let driverMoves = movers.flatMap { $0.books.moves.map(\.took.timeInterval) }.sorted()
        let riderMoves = watchers.flatMap { $0.books.moves.map(\.took.timeInterval) }.sorted()
        phase.driverMoveP50 = percentile(driverMoves, 0.5)
        phase.driverMoveP99 = percentile(driverMoves, 0.99)
        phase.driverMoveMax = driverMoves.last
        phase.riderMoveP50 = percentile(riderMoves, 0.5)
        phase.riderMoveP99 = percentile(riderMoves, 0.99)
        phase.riderMoveMax = riderMoves.last
        var overlapping = 0
        for watcher in watchers {
            let driver = movers[watcher.driverIndex].books.moves
            for move in watcher.books.moves
            where driver.contains(where: { $0.closedAt <= move.closedAt && move.closedAt < $0.closedAt + $0.took }) {
                overlapping += 1
            }
        }
        phase.riderMovesDuringDriverMove = overlapping
    }

    /// The drivers' moves of each drain (those told to move after its start and before the next drain's): p50, p99.
    static func byDrain(
        _ movers: [MovingDriver], drainStarts: [ContinuousClock.Instant], into phase: inout RestartBenchmarkResult.Phase
    ) {
        let moves = movers.flatMap(\.books.moves)
        phase.driverMovesByDrain = drainStarts.enumerated().map { index, start in
            let end = index + 1 < drainStarts.count ? drainStarts[index + 1] : nil
            let took = moves.filter { move in move.closedAt >= start && (end.map { move.closedAt < $0 } ?? true) }
                .map(\.took.timeInterval).sorted()
            guard !took.isEmpty else { return [] }
            func percentile(_ share: Double) -> Double {
                took[min(took.count - 1, Int((Double(took.count) * share).rounded(.up)) - 1)]
            }
            return [percentile(0.5), percentile(0.99)]
        }
    }

    /// For the riders whose longest gap is at the p90 or above: did it overlap their driver's move, their own, both,
    /// or neither (a slow bus, a stall of the node feeding them)?
    static func tailCauses(
        _ movers: [MovingDriver], _ watchers: [MovingRider], into phase: inout RestartBenchmarkResult.Phase
    ) {
        let now = ContinuousClock.now
        let spans = watchers.map { $0.longestGapSpan(until: now) }
        let sorted = spans.map(\.gap).sorted()
        guard !sorted.isEmpty else { return }
        let p90 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.9).rounded(.up)) - 1)]
        func overlaps(_ moves: [StreamMove], _ start: ContinuousClock.Instant, _ end: ContinuousClock.Instant) -> Bool {
            moves.contains { $0.closedAt < end && $0.closedAt + $0.took > start }
        }
        var causes: [String: Int] = [:]
        for (watcher, span) in zip(watchers, spans) where span.gap >= p90 {
            let start = span.end - span.gap
            let driver = overlaps(movers[watcher.driverIndex].books.moves, start, span.end)
            let own = overlaps(watcher.books.moves, start, span.end)
            let cause = driver && own ? "both" : driver ? "driver's move" : own ? "own move" : "neither"
            causes[cause, default: 0] += 1
        }
        phase.tailGapCauses = causes
    }

    private func redisEndpoint() throws(BenchError) -> RedisEndpoint {
        // The error names the URL with its password masked; the URL itself would show it.
        do { return try RedisEndpoint(url: redis) } catch { throw BenchError("--redis: \(error)") }
    }

    /// Runs `body` for each element, `concurrency` at a time.
    private func forEach<T: Sendable>(
        _ items: [T], concurrency: Int, _ body: @escaping @Sendable (T) async -> Void
    ) async {
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            while next < min(concurrency, items.count) {
                let item = items[next]
                group.addTask { await body(item) }
                next += 1
            }
            for await _ in group where next < items.count {
                let item = items[next]
                group.addTask { await body(item) }
                next += 1
            }
        }
    }

    private func closeCounts(_ movers: [MovingDriver], _ watchers: [MovingRider]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for mover in movers { for (code, count) in mover.books.closes { counts[String(code), default: 0] += count } }
        for watcher in watchers {
            for (code, count) in watcher.books.closes { counts[String(code), default: 0] += count }
        }
        return counts
    }

    static func difference(_ after: [String: Int], _ before: [String: Int]) -> [String: Int] {
        after.compactMapValues { $0 }.reduce(into: [:]) { result, entry in
            let delta = entry.value - (before[entry.key] ?? 0)
            if delta > 0 { result[entry.key] = delta }
        }
    }

    /// Batches a driver had acknowledged that the shared ingest state does not hold: its `seq` behind the ack.
    static func lostBatches(_ movers: [MovingDriver], driverIDs: [String], store: RedisDriverIngestStore) async -> Int {
        var lost = 0
        for chunk in stride(from: 0, to: movers.count, by: 500) {
            let part = Array(chunk..<min(movers.count, chunk + 500))
            let acked = part.map { movers[$0].books.maxAcked }
            guard let states = try? await store.states(driverIDs: part.map { driverIDs[$0] }) else { continue }
            for (offset, index) in part.enumerated() {
                let stored = states[driverIDs[index]]?.lastSeq ?? 0
                lost += max(0, Int(acked[offset] - stored))
            }
        }
        return lost
    }

    /// Lost: riders whose newest version is behind the trip's; doubled: trips more than one version per tap on.
    static func tripEvents(_ watchers: [MovingRider], before: [String: Int], after: [String: Int], taps: Int)
        -> (lost: Int, doubled: Int)
    {
        var lost = 0
        var doubled = 0
        for watcher in watchers {
            guard let final = after[watcher.tripID] else { continue }
            if (watcher.books.version ?? 0) < final { lost += final - (watcher.books.version ?? 0) }
            if let start = before[watcher.tripID], final - start > taps { doubled += final - start - taps }
        }
        return (lost, doubled)
    }

    /// How the drivers came back after the kill at `killAt`: percentiles, acks by second, connects tried and failed.
    static func recovery(
        _ movers: [MovingDriver], since killAt: ContinuousClock.Instant, into phase: inout RestartBenchmarkResult.Phase
    ) {
        let books = movers.map(\.books)
        let back = books.compactMap { $0.firstAckAfterMark.map { ($0 - killAt).timeInterval } }.sorted()
        let handshakes = books.compactMap { $0.firstConnectAfterMark.map { ($0 - killAt).timeInterval } }.sorted()
        func percentile(_ sorted: [Double], _ share: Double) -> Double? {
            sorted.isEmpty ? nil : sorted[min(sorted.count - 1, Int((Double(sorted.count) * share).rounded(.up)) - 1)]
        }
        phase.backP50 = percentile(back, 0.5)
        phase.backP90 = percentile(back, 0.9)
        phase.handshakeP50 = percentile(handshakes, 0.5)
        phase.handshakeMax = handshakes.last
        if let last = back.last {
            var bySecond = Array(repeating: 0, count: Int(last) + 1)
            for seconds in back { bySecond[Int(seconds)] += 1 }
            phase.backBySecond = bySecond
        }
        phase.mostAttempts = books.map(\.attemptsAfterMark).max() ?? 0
        for book in books {
            phase.connectFailures.merge(book.failuresAfterMark, uniquingKeysWith: +)
            phase.closeReasons.merge(book.closesAfterMark, uniquingKeysWith: +)
        }
    }

    /// The riders' longest gaps into the phase's p50, p99 and max.
    static func gaps(_ watchers: [MovingRider], into phase: inout RestartBenchmarkResult.Phase) {
        let now = ContinuousClock.now
        let sorted = watchers.map { $0.longestGap(until: now).timeInterval }.sorted()
        guard !sorted.isEmpty else { return }
        phase.riderGapP50 = sorted[(sorted.count - 1) / 2]
        phase.riderGapP99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
        phase.riderGapMax = sorted.last ?? 0
    }
}
