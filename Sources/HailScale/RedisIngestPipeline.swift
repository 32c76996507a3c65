import Foundation
import HailCore
import HailServer
import HailThreads
import Synchronization

/// The scaled ingest's Redis side: the batches planned while the last round trip was out are written
/// together, as one script call that applies each (version check, seq, filter, position and the publish to
/// the trip's channel) on the driver's own hash, on one connection owned by one thread.
///
/// Each driver's state is `<prefix>:{driver:<id>}`, one hash slot per driver; the round's call names every
/// driver's key and is declared `allow-cross-slot-keys` (Redis 7), so on Redis Cluster a client sending it per
/// node (the slots a node owns) still works, and on one Redis a round costs one script call, not one per
/// batch: the call's own setup was most of what Redis spent on a batch. The geo index lives in another slot,
/// so the positions of the batches a round applied go to it as one script call at the head of the next round:
/// a position enters the index only once its batch is applied, and a round trip carries many drivers' writes
/// and the geo update of the round before. Scripts are called by SHA (`EVALSHA`) after one `SCRIPT LOAD`; a
/// server that answers `NOSCRIPT` (restarted, or `SCRIPT FLUSH`) gets them loaded again and the refused calls
/// resent, so no batch sees the difference.
public final class RedisIngestPipeline: DriverIngestPipeline {
    /// Shared by every node.
    public var scope: StateScope { .deployment }

    /// What the pipeline has done, for tests and benchmarks.
    public struct Statistics: Sendable, Hashable {
        /// Pipelined writes to the server, each answered before the next.
        public var roundTrips = 0
        /// Commands sent in them.
        public var commands = 0
        /// Planned batches answered, applied or stale.
        public var writes = 0
        /// The most planned batches one round trip carried.
        public var largestRound = 0
        /// Planned batches refused because the driver's state had changed.
        public var staleWrites = 0
        /// Times the scripts were loaded (once at start, again after each `NOSCRIPT`).
        public var scriptLoads = 0
        /// Geo updates lost to a failed round (the driver's next batch puts them back).
        public var lostGeoUpdates = 0
    }

    /// Arguments per write in `roundScript`'s ARGV.
    static let argumentsPerWrite = 8

    /// The most jobs that wait for a round: far above what a healthy Redis leaves waiting (a round takes what
    /// arrived during the last round trip), and a bound on what a silent one can pile up; a write past it is
    /// refused at once and its batch given back to the phone.
    static let capacity = 65_536

    // KEYS: each write's driver hash. ARGV, 8 per write: expected ver, new ver, seq, filter, position ('' for
    // none), lifetime in ms ('' to leave it), channel ('' for none), payload. Returns, per write, 1 when
    // written, 0 (nothing changed) when `ver` is not the expected one.
    static let roundScript = """
        #!lua flags=allow-cross-slot-keys
        local written = {}
        for i, key in ipairs(KEYS) do
            local a = (i - 1) * 8
            if redis.call('HGET', key, 'ver') ~= ARGV[a + 1] then
                written[i] = 0
            else
                if ARGV[a + 5] == '' then
                    redis.call('HSET', key, 'ver', ARGV[a + 2], 'seq', ARGV[a + 3], 'filter', ARGV[a + 4])
                else
                    redis.call('HSET', key, 'ver', ARGV[a + 2], 'seq', ARGV[a + 3], 'filter', ARGV[a + 4],
                        'position', ARGV[a + 5])
                end
                if ARGV[a + 6] ~= '' then redis.call('PEXPIRE', key, ARGV[a + 6]) end
                if ARGV[a + 7] ~= '' then redis.call('PUBLISH', ARGV[a + 7], ARGV[a + 8]) end
                written[i] = 1
            end
        end
        return written
        """

    private struct PreparedWrite: Sendable {
        let key: String
        let arguments: [String]
        /// The geo script's three arguments for this driver (id, longitude, latitude), when they are online.
        let geo: [String]?
        let whenDone: @Sendable (Result<PlannedIngestOutcome, any Error>) -> Void
    }

    private enum Job: Sendable {
        case write(PreparedWrite)
        case commands([[String]], @Sendable (Result<[RedisReply], any Error>) -> Void)
    }

    private struct Queue {
        var jobs: [Job] = []
        /// The thread is waiting, or about to, on `wake`: the next job must signal it.
        var sleeping = false
        var closed = false
        /// Tests hold the rounds to queue writes that must share one.
        var held = false
        var statistics = Statistics()
        /// Where the rounds are counted for `/metrics`, once `reportStatistics(to:)` is called.
        var metrics: Metrics?
    }

    /// The `/metrics` series a round adds to, resolved once.
    private struct Metrics: Sendable {
        let roundTrips: MetricsRegistry.Counter
        let applied: MetricsRegistry.Counter
        let stale: MetricsRegistry.Counter
    }

    /// What only the pipeline's thread touches.
    private struct Round {
        var shas: (write: String, geo: String)?
        var geo: [String] = []
    }

    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let connection: RedisConnection
    private let ingestPrefix: String
    private let geoKeys: (positions: String, seen: String)
    private let busPrefix: String
    private let lifetimeMillis: String

    /// A pipeline to `endpoint` writing the keys of `RedisDriverIngestStore(prefix: ingestPrefix)`,
    /// `RedisGeoIndex(prefix: geoPrefix)` and the channels of `RedisTripBus(prefix: busPrefix)`.
    public init(
        endpoint: RedisEndpoint, ingestPrefix: String = "hail:ingest", geoPrefix: String = "hail:drivers",
        busPrefix: String = "", lifetime: TimeInterval = 86_400
    ) {
        connection = RedisConnection(endpoint: endpoint)
        self.ingestPrefix = ingestPrefix
        geoKeys = RedisGeoIndex.keys(prefix: geoPrefix)
        self.busPrefix = busPrefix
        lifetimeMillis = String(Int(lifetime * 1000))
        let thread = Thread { [self] in self.serve() }
        thread.name = "hail-redis-ingest"
        thread.start()
    }

    /// The counts so far.
    public var statistics: Statistics { queue.withLock { $0.statistics } }

    /// Counts the rounds in `registry` from now on: `hail_redis_ingest_round_trips_total` and
    /// `hail_redis_ingest_writes_total` by result, so an operator (and `hail bench ingest`) can divide one by
    /// the other and see how many batches share a round trip.
    public func reportStatistics(to registry: MetricsRegistry) {
        Self.declareMetrics(in: registry)
        let metrics = Metrics(
            roundTrips: registry.counter("hail_redis_ingest_round_trips_total"),
            applied: registry.counter("hail_redis_ingest_writes_total", labels: ["result": "applied"]),
            stale: registry.counter("hail_redis_ingest_writes_total", labels: ["result": "stale"]))
        queue.withLock { $0.metrics = metrics }
    }

    /// Declares the metrics the pipeline reports, so they are exposed before its first round.
    public static func declareMetrics(in registry: MetricsRegistry) {
        registry.declare(
            "hail_redis_ingest_round_trips_total", type: "counter",
            help: "Pipelined round trips to Redis that carried location batches' ingest writes.")
        registry.declare(
            "hail_redis_ingest_writes_total", type: "counter",
            help: "Location batches' ingest writes Redis answered, by result (applied, or stale and retried locked).")
    }

    /// Reads the driver's hash and its `ver`.
    public func load(driverID: String) async throws -> VersionedIngestState? {
        let key = RedisDriverIngestStore.key(prefix: ingestPrefix, driverID: driverID)
        let replies = try await commands([["HGETALL", key]])
        return try RedisDriverIngestStore.decodeVersioned(try replies[0].checked())
    }

    /// Reads several drivers' states in one round trip (a node taking over a dead one's streams).
    public func load(driverIDs: [String]) async throws -> [String: VersionedIngestState] {
        guard !driverIDs.isEmpty else { return [:] }
        let replies = try await commands(
            driverIDs.map { ["HGETALL", RedisDriverIngestStore.key(prefix: ingestPrefix, driverID: $0)] })
        var states: [String: VersionedIngestState] = [:]
        for (driverID, reply) in zip(driverIDs, replies) {
            states[driverID] = try RedisDriverIngestStore.decodeVersioned(try reply.checked())
        }
        return states
    }

    /// Queues the batch's script call for the next round trip.
    public func write(
        _ write: PlannedIngestWrite, whenDone: @escaping @Sendable (Result<PlannedIngestOutcome, any Error>) -> Void
    ) {
        var channel = ""
        var payload = ""
        if let (message, topic) = write.publish {
            channel = RedisTripBus.channel(topic, prefix: busPrefix)
            payload = BusPayloadText.payload(message)
        }
        let arguments = [
            write.expectedVersion, write.newVersion, String(write.seq), IngestStateText.filter(write.filter),
            write.position.map(IngestStateText.position) ?? "", write.renewsLifetime ? lifetimeMillis : "", channel,
            payload,
        ]
        // When the driver was seen is Redis's time as the script runs, not this node's.
        let geo = write.geo.map { coordinate, _ in
            [write.driverID, "\(coordinate.lng)", "\(coordinate.lat)"]
        }
        let key = RedisDriverIngestStore.key(prefix: ingestPrefix, driverID: write.driverID)
        submit(.write(PreparedWrite(key: key, arguments: arguments, geo: geo, whenDone: whenDone)))
    }

    /// Runs `commands` in the next round trip; their replies in order, errors among them not thrown.
    func commands(_ commands: [[String]]) async throws -> [RedisReply] {
        try await withCheckedThrowingContinuation { continuation in
            submit(.commands(commands) { continuation.resume(with: $0) })
        }
    }

    /// Lets the queued writes go, then closes the connection; later writes fail at once.
    public func close() {
        let signal = queue.withLock { queue in
            queue.closed = true
            defer { queue.sleeping = false }
            return queue.sleeping
        }
        if signal { wake.signal() }
    }

    /// Holds the next round back until `held` is false again, so that what is queued meanwhile goes in it.
    func holdRounds(_ held: Bool) {
        let signal = queue.withLock { queue in
            queue.held = held
            defer { if !held { queue.sleeping = false } }
            return !held && queue.sleeping
        }
        if signal { wake.signal() }
    }

    private func submit(_ job: Job) {
        let (refusal, signal) = queue.withLock { queue -> ((any Error)?, Bool) in
            guard !queue.closed else { return (RedisError.closed, false) }
            guard queue.jobs.count < Self.capacity else {
                return (ThreadPoolError.full("hail-redis-ingest", capacity: Self.capacity), false)
            }
            queue.jobs.append(job)
            defer { queue.sleeping = false }
            return (nil, queue.sleeping)
        }
        if signal { wake.signal() }
        guard let refusal else { return }
        switch job {
        case .write(let write): write.whenDone(.failure(refusal))
        case .commands(_, let done): done(.failure(refusal))
        }
    }

    private enum Step {
        case run([Job])
        case wait
        case stop
    }

    private func serve() {
        var round = Round()
        loop: while true {
            let step = queue.withLock { queue -> Step in
                if !queue.held, !queue.jobs.isEmpty || !round.geo.isEmpty {
                    var taken: [Job] = []
                    swap(&taken, &queue.jobs)
                    return .run(taken)
                }
                if queue.closed, !queue.held, queue.jobs.isEmpty { return .stop }
                queue.sleeping = true
                return .wait
            }
            switch step {
            case .run(let jobs): run(jobs, &round)
            case .wait: wake.wait()
            case .stop: break loop
            }
        }
        connection.close()
    }

    /// One round trip: the scripts loaded first if they are not, then the last round's geo updates and every
    /// job, written at once and answered in order.
    private func run(_ jobs: [Job], _ round: inout Round) {
        let shas: (write: String, geo: String)
        do {
            shas = try round.shas ?? loadScripts()
            round.shas = shas
        } catch {
            fail(jobs, error, &round)
            return
        }
        var writes: [PreparedWrite] = []
        var batches: [([[String]], @Sendable (Result<[RedisReply], any Error>) -> Void)] = []
        for job in jobs {
            switch job {
            case .write(let write): writes.append(write)
            case .commands(let commands, let done): batches.append((commands, done))
            }
        }
        var commands = RedisCommandEncoder(capacity: 512 * writes.count + 256)
        let geo = round.geo
        if !geo.isEmpty {
            commands.append(["EVALSHA", shas.geo, "2", geoKeys.positions, geoKeys.seen], then: geo)
        }
        if !writes.isEmpty {
            commands.beginCommand(arguments: 3 + writes.count * (1 + Self.argumentsPerWrite))
            commands.argument("EVALSHA")
            commands.argument(shas.write)
            commands.argument(String(writes.count))
            for write in writes { commands.argument(write.key) }
            for write in writes { for argument in write.arguments { commands.argument(argument) } }
        }
        for (batch, _) in batches { for command in batch { commands.append(command) } }
        let replies: [RedisReply]
        do {
            replies = try connection.pipeline(commands)
        } catch {
            fail(jobs, error, &round)
            return
        }
        var next = 0
        var lostGeo = 0
        round.geo = []
        if !geo.isEmpty {
            if case .error(let message) = replies[0] {
                if message.hasPrefix("NOSCRIPT") {
                    round.shas = nil
                    round.geo = geo
                } else {
                    lostGeo = geo.count / RedisGeoIndex.updateArity
                }
            }
            next = 1
        }
        var retry: [Job] = []
        var answered = 0
        var stale = 0
        // Counted before anyone hears back, so a caller that saw its answer sees its round counted.
        var completions: [@Sendable () -> Void] = []
        if !writes.isEmpty {
            let reply = replies[next]
            next += 1
            switch reply {
            case .array(let written) where written.count == writes.count:
                for (write, outcome) in zip(writes, written) {
                    answered += 1
                    if outcome == .integer(1) {
                        if let member = write.geo { round.geo += member }
                        completions.append { write.whenDone(.success(.applied)) }
                    } else {
                        stale += 1
                        completions.append { write.whenDone(.success(.stale)) }
                    }
                }
            case .error(let message) where message.hasPrefix("NOSCRIPT"):
                // The server lost its scripts; nothing was written, so the call goes again once they are back.
                round.shas = nil
                retry = writes.map { .write($0) }
            default:
                let error = RedisError.unexpected("the ingest script answered \(reply)")
                for write in writes { completions.append { write.whenDone(.failure(error)) } }
            }
        }
        for (batch, done) in batches {
            let answers = Array(replies[next..<next + batch.count])
            completions.append { done(.success(answers)) }
            next += batch.count
        }
        let metrics = queue.withLock { queue in
            queue.jobs.insert(contentsOf: retry, at: 0)
            queue.statistics.roundTrips += 1
            queue.statistics.commands += commands.count
            queue.statistics.writes += answered
            queue.statistics.largestRound = max(queue.statistics.largestRound, answered)
            queue.statistics.staleWrites += stale
            queue.statistics.lostGeoUpdates += lostGeo
            return queue.metrics
        }
        if let metrics, answered > 0 {
            metrics.roundTrips.add()
            metrics.applied.add(Double(answered - stale))
            if stale > 0 { metrics.stale.add(Double(stale)) }
        }
        for completion in completions { completion() }
    }

    /// Loads both scripts (a round trip of its own) and returns their SHAs.
    private func loadScripts() throws -> (write: String, geo: String) {
        let replies = try connection.pipeline([
            ["SCRIPT", "LOAD", Self.roundScript], ["SCRIPT", "LOAD", RedisGeoIndex.updateScript],
        ])
        for case .error(let message) in replies {
            throw RedisError.configuration(
                "Redis refused the ingest scripts (Hail needs Redis 7 or later for their flags): \(message)")
        }
        guard let write = replies[0].text, let geo = replies[1].text else {
            throw RedisError.unexpected("SCRIPT LOAD answered \(replies)")
        }
        queue.withLock { $0.statistics.scriptLoads += 1 }
        return (write, geo)
    }

    /// A round that could not be written or read: the connection is gone (the next round reconnects), and
    /// whether the writes were applied is unknown, so each fails and its batch is taken back.
    private func fail(_ jobs: [Job], _ error: any Error, _ round: inout Round) {
        let lostGeo = round.geo.count / RedisGeoIndex.updateArity
        round = Round()
        queue.withLock { queue in
            queue.statistics.lostGeoUpdates += lostGeo
        }
        for job in jobs {
            switch job {
            case .write(let write): write.whenDone(.failure(error))
            case .commands(_, let done): done(.failure(error))
            }
        }
    }
}
