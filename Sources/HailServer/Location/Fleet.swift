import Foundation
import HailCore
import HailProtocol
import HailRoads
import HailTime
import Synchronization

/// This node's view of the drivers: who is online, where they are, which trip each serves, and the
/// location ingest that turns their batches into published positions and trip history.
///
/// Not an actor: every batch of every driver would queue behind one. Per-driver state is in lock shards
/// (`ShardedMap`), so the loops ingest their drivers side by side. `ingestNow` runs a batch to the end on
/// the calling thread (a network loop) when the stores are this process's own; in the scaled mode it plans
/// the batch on the loop from this node's copy of the driver's shared state and writes it in one round trip
/// (`DriverIngestPipeline`). `ingest` is the same work step by step through the async stores: the path of a
/// driver this node has no copy of, or whose copy another node made stale.
public final class Fleet: Sendable {
    /// Tunables.
    public struct Configuration: Sendable, Hashable {
        /// A driver silent this long leaves the geo index and gets no offers (brief: 60 s).
        public var silenceTimeout: TimeInterval = 60
        /// How far nearby-car positions are moved at random, for driver privacy.
        public var nearbyFuzzMeters: Double = 150
        /// Radius of the nearby-cars query.
        public var nearbyRadiusMeters: Double = 3000
        /// How long one area's nearby answer is reused.
        public var nearbyCacheSeconds: TimeInterval = 10
        /// How far ahead of the server's clock a fix's device time may be (phone clocks drift; this is more
        /// than the ±2 min the apps are tested with). A fix further ahead is dropped as `future`.
        public var maximumClockAheadSeconds: TimeInterval = 300
        /// How often at most the scaled mode rewrites an online driver's geo index entry (server time). A batch
        /// sooner after the last rewrite moves only the driver's shared state: under a saturating load, geo
        /// writes stay at two a second per driver instead of one per batch, and a driver sending once a
        /// second (the app's pace) has every batch in the index. The index then trails the driver's newest
        /// fix by at most this long.
        public var geoRefreshSeconds: TimeInterval = 0.5
        /// How often at most the scaled mode renews the lifetime of a driver's shared state (a day, after which
        /// a driver gone that long is forgotten): once a minute is as good as once a batch, at a fraction of
        /// the work in Redis.
        public var lifetimeRefreshSeconds: TimeInterval = 60

        /// The defaults.
        public init() {}
    }

    /// What ingesting one batch did.
    public struct IngestResult: Sendable, Hashable {
        /// The seq to acknowledge (always the batch's: an old batch is acknowledged and ignored).
        public var ackSeq: Int64
        /// False when the batch was a duplicate or older than one already applied.
        public var applied: Bool
        /// Points kept.
        public var accepted: Int
        /// Points dropped, by reason.
        public var dropped: [String: Int]
        /// The position published to the trip's riders, if any.
        public var published: DriverLocation?
    }

    /// What only this node needs about a driver; what every node must agree on (seq, filter, status,
    /// position, trip) is in the `DriverIngestStore`.
    private struct DriverState: Sendable {
        var position: DriverLocation?
        /// Where `position` lies on the roads, the start of the next published road path.
        var snap: RoadSnap?
        /// The app that last sent this driver's positions: its cohort picks the route provider for them.
        var client: ClientInfo?
        /// The location counters of the client that sent the last batch, kept so each batch only adds.
        var counters: LocationCounters?
        /// The shared state as this node last read or wrote it (scaled mode), to plan the next batch on.
        var cache: VersionedIngestState?
        /// The driver's status (online, degraded) as this node last saw it in the shared state: kept when that
        /// state vanishes, so the node whose batches show the driver still there can put it back.
        var presence: (online: Bool, degraded: Bool)?
        /// When this node last wrote the driver's geo index entry (scaled mode), for `geoRefreshSeconds`.
        var geoWrittenAt: Date?
        /// When this node last renewed the lifetime of the driver's shared state, for `lifetimeRefreshSeconds`.
        var lifetimeRenewedAt: Date?
        /// When the driver's phone took its fixes, on the server's clock, from the batches this node read.
        var fixTimes = FixTimeEstimator()
        /// The edges the car was shown on, or gliding along, in the last `recentStretchSeconds`, oldest first, each
        /// with when.
        var recentEdges: [(edge: Int, at: Date)] = []
    }

    private let configuration: Configuration
    private let geo: any GeoIndex
    let trips: any TripStore
    private let history: any LocationHistoryStore
    /// `history` when it judges each batch against the committed trip itself (SQLite, PostgreSQL).
    private let underWayHistory: (any UnderWayHistoryStore)?
    private let bus: any TripBus
    private let time: Timeline
    private let metrics: ServerMetrics
    private let routing: ServerRouting
    let ingestState: any DriverIngestStore
    /// The embedded store, called without leaving the actor on the per-batch path (it is only a lock).
    private let localIngestState: MemoryDriverIngestStore?
    /// This node's per-driver state, sharded by driver.
    private let drivers = ShardedMap<String, DriverState>()
    /// Cars on a trip standing on each edge: the trip watch's jams.
    private let standingCars = StandingCars()
    /// Drivers whose shared trip record a write after a commit failed to bring up to date, for the reconciler.
    private let suspects = Mutex<Set<String>>([])
    /// The embedded geo index and bus, used directly on the loop; nil in the scaled mode.
    private let localGeo: MemoryGeoIndex?
    private let localBus: InProcessTripBus?
    private let nearby: Mutex<NearbyState>
    /// The scaled mode's one-round-trip write; nil when the stores are this process's own.
    private let pipeline: (any DriverIngestPipeline)?
    /// Watches the trips under way whose cars report here for route deviations and long stops.
    public let tripWatch: TripWatch?
    /// Makes each pipelined write's version unique: this node's random prefix and a counter.
    private let versionPrefix = String(UUID().uuidString.prefix(8))
    private let versionCounter = Atomic<Int>(0)

    private struct NearbyState: Sendable {
        var cache: [String: (at: Date, coordinates: [Coordinate])] = [:]
        var random: AnyRandomNumberGenerator
    }

    /// Creates the fleet view.
    public init(
        configuration: Configuration = Configuration(),
        geo: any GeoIndex,
        trips: any TripStore,
        history: any LocationHistoryStore,
        bus: any TripBus,
        time: Timeline,
        metrics: ServerMetrics,
        routing: ServerRouting = ServerRouting(network: nil),
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        ingestState: any DriverIngestStore = MemoryDriverIngestStore(),
        pipeline: (any DriverIngestPipeline)? = nil,
        tripWatch: TripWatch? = nil
    ) {
        self.configuration = configuration
        self.tripWatch = tripWatch
        self.pipeline = pipeline
        self.ingestState = ingestState
        localIngestState = ingestState as? MemoryDriverIngestStore
        self.geo = geo
        self.trips = trips
        self.history = history
        underWayHistory = history as? any UnderWayHistoryStore
        self.bus = bus
        self.time = time
        self.metrics = metrics
        self.routing = routing
        localGeo = geo as? MemoryGeoIndex
        localBus = bus as? InProcessTripBus
        nearby = Mutex(NearbyState(random: AnyRandomNumberGenerator(base: random)))
    }

    /// Marks a driver online or offline (offline also leaves the geo index).
    public func setStatus(driverID: String, online: Bool, degraded: Bool) async throws {
        try await ingestState.setStatus(driverID: driverID, online: online, degraded: degraded)
        drivers.withValue(driverID) { $0?.presence = (online, degraded) }
        if !online { try await geo.remove(driverID: driverID) }
    }

    /// Whether the driver is online and reported degraded location.
    public func status(driverID: String) async -> (online: Bool, degraded: Bool) {
        let state = try? await ingestState.state(driverID: driverID)
        return (state?.online ?? false, state?.degraded ?? false)
    }

    /// Records which trip the driver serves (called after every committed trip change, on the node that
    /// committed it; the store carries it to the node ingesting the driver's positions). A write that fails
    /// (Redis refusing) leaves the driver to the reconciler, which repairs them first (`takeSuspects`).
    public func tripChanged(_ record: TripRecord, previousDriverID: String?) async {
        if let previousDriverID, previousDriverID != record.driverID {
            do {
                try await ingestState.releaseTrip(record.trip.id, driverID: previousDriverID)
            } catch {
                suspects.withLock { _ = $0.insert(previousDriverID) }
            }
        }
        guard let driverID = record.driverID else { return }
        do {
            try await ingestState.recordTrip(record)
        } catch {
            suspects.withLock { _ = $0.insert(driverID) }
        }
    }

    /// True when a trip record write failed since the last `takeSuspects`.
    public var hasSuspects: Bool { suspects.withLock { !$0.isEmpty } }

    /// The drivers whose trip record a write failed to update, forgotten here: the reconciler repairs them, and
    /// gives back (`suspect`) those it could not reach.
    public func takeSuspects() -> Set<String> {
        suspects.withLock { taken in
            defer { taken = [] }; return taken
        }
    }

    /// Puts drivers back among the suspects (their repair could not be done).
    func suspect(_ driverIDs: some Sequence<String>) { suspects.withLock { $0.formUnion(driverIDs) } }

    /// Forgets this node's copy of the driver's shared state, so their next batch is planned on what is stored.
    func forgetCopy(driverID: String) { drivers.withValue(driverID) { $0?.cache = nil } }

    /// A trip started: its history (the fare's distance) begins where the car stood, `start`, the driver's last fix
    /// read before the start was committed (`standing(driverID:)`), since the fixes the phone sends from then on were
    /// taken after the car moved off. Read after the commit, on a node whose Redis answers slowly, it was a fix taken
    /// seconds into the trip, and the way from the pickup to it went unpaid (issue 37, I8). Without `start` (storage
    /// did not answer before the commit) the driver's last fix is read now; without any, or with storage
    /// unavailable, the history begins with the next fix.
    public func tripStarted(tripID: String, driverID: String, from start: LocationPoint? = nil) async {
        var fix = start
        if fix == nil { fix = try? await ingestState.state(driverID: driverID)?.filter.lastAccepted }
        guard let fix else { return }
        // Where the car stood, without the fix's heading: a car that came to rest facing one way may leave the other.
        let point = HistoryPoint(
            coordinate: fix.coordinate, t: fix.t, receivedAt: time.now(), backlog: false, standing: true)
        try? await history.append(tripID: tripID, points: [point])
    }

    /// "ended" carried the fixes of the trip its phone had not had acknowledged: they join the trip's history (those
    /// it holds already, by their time, are ignored), judged among themselves by the filter a backlog batch passes
    /// (an outlier at an impossible speed stays out), except fixes from the future, which no phone can have taken.
    public func tripEnding(tripID: String, path: [LocationPoint]) async throws {
        let now = time.now()
        var filter = LocationFilter()
        let points = path.sorted { $0.t < $1.t }.filter {
            $0.t.timeIntervalSince(now) <= configuration.maximumClockAheadSeconds && filter.evaluate($0) == .accept
        }.map { HistoryPoint($0, receivedAt: now, backlog: true) }
        guard !points.isEmpty else { return }
        try await history.append(tripID: tripID, points: points)
    }

    /// The driver's last published position, whichever node published it.
    public func position(driverID: String) async -> DriverLocation? {
        await standing(driverID: driverID).position
    }

    /// Where the driver is, as every node sees it: the last published position (this node's own when the shared
    /// state cannot be read) and the last fix the filter accepted (nil when the shared state cannot be read).
    public func standing(driverID: String) async -> (position: DriverLocation?, fix: LocationPoint?) {
        let shared = try? await ingestState.state(driverID: driverID)
        return (shared?.position ?? drivers[driverID]?.position, shared?.filter.lastAccepted)
    }

    /// The trip the driver serves as this node knows it (its copy of the shared state; on one node, the store's), nil
    /// when none or not known here: a drain pairs each rider with its driver's stream by it.
    public func servedTripID(driverID: String) async -> String? {
        if let cached = drivers.withValue(driverID, { $0?.cache }) { return cached.state.trip?.trip.id }
        guard pipeline == nil else { return nil }
        return try? await ingestState.state(driverID: driverID)?.trip?.trip.id
    }

    /// Every driver whose positions this node has ingested, sorted; the operator's map lists them all,
    /// however far from the map's centre (on one node, that is every driver).
    public func knownDriverIDs() async -> [String] { drivers.keys.sorted() }

    /// The app that last sent the driver's positions; ETAs from them use its cohort's route provider, so a
    /// trip's snapshots agree with its driverMoved frames.
    public func client(driverID: String) async -> ClientInfo? { drivers[driverID]?.client }

    /// Ingests one batch: seq check, server-side filter, geo index, live publish, trip history.
    ///
    /// Live points move the rider's car (only the newest of the batch is published). Backlog points,
    /// flushed from the phone's offline buffer, only go to the trip's history: they change the driven
    /// distance and the fare, never the car. A keep-alive without a fix (`noFix`) keeps the driver online and
    /// in the geo index and moves nothing else: no position, no publish, no history. Each published position
    /// carries `fixedAt`, when the phone took the fix on the server's clock (`FixTimeEstimator`, per driver).
    ///
    /// When the sending client's cohort routes on roads, the published position is moved onto the road
    /// (heading-aware) and carries the road path from the previous published position, and the ETA is by
    /// road; otherwise, or when no road is near or no route joins them, the raw fix, no path (the car
    /// glides straight) and the straight-line ETA. A fix a few metres behind the last one on the same road
    /// is noise and publishes the last position again. History keeps the raw fixes: matching is the
    /// fare's job.
    public func ingest(driverID: String, batch: LocationBatch, client: ClientInfo?) async throws -> IngestResult {
        let now = time.now()
        // The seq is taken atomically in the shared store, so a batch replayed to another node is refused.
        let advanced =
            if let localIngestState {
                localIngestState.advance(driverID: driverID, to: batch.seq)
            } else {
                try await ingestState.advance(driverID: driverID, to: batch.seq)
            }
        guard var before = advanced else {
            await refreshCache(driverID: driverID)
            return duplicate(batch, client: client)
        }
        do {
            if let restored = statusToRestore(driverID: driverID, before: before) {
                try await ingestState.setStatus(driverID: driverID, online: true, degraded: restored.degraded)
                self.restored(driverID: driverID, degraded: restored.degraded, in: &before)
            }
            var shared = before
            if !shared.tripKnown {
                let record = try await trips.activeRecord(driverID: driverID)
                try await ingestState.loadedTrip(record, driverID: driverID)
                shared.trip = try await ingestState.state(driverID: driverID)?.trip ?? record
                shared.tripKnown = true
            }
            let plan = plan(batch, of: driverID, client: client, now: now, shared: shared)
            if let (coordinate, seenAt) = plan.geoUpdate {
                try await geo.update(driverID: driverID, coordinate: coordinate, seenAt: seenAt)
            }
            if let (message, topic) = plan.publish { await bus.publish(message, to: topic) }
            if let localIngestState {
                localIngestState.saveFix(driverID: driverID, filter: plan.filter, position: plan.position)
            } else {
                try await ingestState.saveFix(driverID: driverID, filter: plan.filter, position: plan.position)
            }
            if let (tripID, points) = plan.history {
                try await appendTripFixes(tripID: tripID, driverID: driverID, points: points)
            }
            applied(plan)
            var local = plan.local
            if plan.geoUpdate != nil { local.geoWrittenAt = now }
            drivers.withValue(driverID) { [local] in $0 = local }
            await refreshCache(driverID: driverID)
            return plan.result
        } catch {
            drivers.withValue(driverID) { $0?.cache = nil }
            // The batch failed half-way (storage unavailable): its seq goes back so the app's retry applies
            // it instead of being taken for a duplicate, and no history point is lost.
            try? await ingestState.rewind(
                driverID: driverID, from: batch.seq, to: before.lastSeq, filter: before.filter)
            throw error
        }
    }

    /// What `ingestNow` did with a batch.
    public enum LoopIngest: Sendable {
        /// Done: acknowledge it now.
        case done(IngestResult)
        /// Applied; its history points are being committed, and `whenCommitted` will say when the batch may
        /// be acknowledged (or that it failed and was taken back).
        case committing(IngestResult)
        /// Being written to the shared stores (scaled mode): `whenCommitted` says when it may be acknowledged
        /// (or that it failed), and so that the driver's next batch may be taken. When history points follow
        /// the write, `whenWritten` comes first, so the next batch need not wait for their commit.
        case writing(IngestResult)
    }

    /// Ingests one batch without blocking the calling thread, or returns nil without touching anything when
    /// it cannot: the trip the driver serves is not known yet (the first batch after a restart reads it from
    /// storage), or, in the scaled mode, this node has no current copy of the driver's shared state. The
    /// network loop calls this for every batch it reads. Embedded, the geo index, the bus and the ingest
    /// state are lock-sharded memory, and the history goes to the group commit, whose `whenCommitted` is
    /// called once on the writer's thread. Scaled, the batch is planned here and written through the
    /// pipeline (`.writing`): `whenWritten` then `whenCommitted` when history points are to be committed,
    /// `whenCommitted` alone otherwise (one hop back to the loop per batch, not two) or with the error.
    public func ingestNow(
        driverID: String, batch: LocationBatch, client: ClientInfo?,
        whenWritten: @escaping @Sendable () -> Void = {},
        whenCommitted: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) -> LoopIngest? {
        guard let localIngestState, let localGeo, let localBus else {
            return write(
                driverID: driverID, batch: batch, client: client, whenWritten: whenWritten,
                whenCommitted: whenCommitted)
        }
        var before: DriverIngestState
        switch localIngestState.advanceIfTripKnown(driverID: driverID, to: batch.seq) {
        case .tripUnknown: return nil
        case .duplicate: return .done(duplicate(batch, client: client))
        case .advanced(let state): before = state
        }
        if let restored = statusToRestore(driverID: driverID, before: before) {
            localIngestState.setStatus(driverID: driverID, online: true, degraded: restored.degraded)
            self.restored(driverID: driverID, degraded: restored.degraded, in: &before)
        }
        let now = time.now()
        let plan = plan(batch, of: driverID, client: client, now: now, shared: before)
        if let (coordinate, seenAt) = plan.geoUpdate {
            localGeo.update(driverID: driverID, coordinate: coordinate, seenAt: seenAt)
        }
        if let (message, topic) = plan.publish { localBus.publishNow(message, to: topic) }
        localIngestState.saveFix(driverID: driverID, filter: plan.filter, position: plan.position)
        applied(plan)
        drivers.withValue(driverID) { $0 = plan.local }
        guard let (tripID, points) = plan.history else { return .done(plan.result) }
        let seq = batch.seq
        let previous = before.lastSeq
        let filter = before.filter
        appendTripFixes(tripID: tripID, driverID: driverID, points: points) { result in
            // Not committed: the seq goes back so the app's retry of this batch is applied, not a duplicate.
            if case .failure = result {
                localIngestState.rewind(driverID: driverID, from: seq, to: previous, filter: filter)
            }
            whenCommitted(result)
        }
        return .committing(plan.result)
    }

    /// The scaled `ingestNow`: plans on the cached shared state, writes in one round trip, and falls back to
    /// `ingest` when the write finds the copy stale.
    private func write(
        driverID: String, batch: LocationBatch, client: ClientInfo?, whenWritten: @escaping @Sendable () -> Void,
        whenCommitted: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) -> LoopIngest? {
        // A copy without a status goes the locked way, which puts the status back (`statusToRestore`).
        guard let pipeline, let cached = drivers.withValue(driverID, { $0?.cache }), cached.state.tripKnown,
            cached.state.statusKnown, !cached.version.isEmpty
        else { return nil }
        // The stored seq never falls below a copy's (a rewind only goes back to a seq that was stored), so a
        // batch the copy calls old is old.
        if let last = cached.state.lastSeq, batch.seq <= last { return .done(duplicate(batch, client: client)) }
        let now = time.now()
        let plan = plan(batch, of: driverID, client: client, now: now, shared: cached.state)
        let version = versionPrefix + "-" + String(versionCounter.add(1, ordering: .relaxed).newValue)
        // A write dated after now (the clock stepped back) is due again: skipping refreshes until the clock caught
        // up would let the shared index, which judges silence by its own clock, evict a driver who is sending.
        let refreshesGeo =
            plan.geoUpdate != nil
            && plan.local.geoWrittenAt.map { Self.isDue(since: $0, every: configuration.geoRefreshSeconds, now: now) }
                ?? true
        let renewsLifetime =
            plan.local.lifetimeRenewedAt.map {
                Self.isDue(since: $0, every: configuration.lifetimeRefreshSeconds, now: now)
            } ?? true
        let write = PlannedIngestWrite(
            driverID: driverID, seq: batch.seq, expectedVersion: cached.version, newVersion: version,
            filter: plan.filter, position: plan.position, publish: plan.publish.map { ($0.0, $0.1) },
            geo: refreshesGeo ? plan.geoUpdate.map { ($0.0, $0.1) } : nil, renewsLifetime: renewsLifetime)
        let previous = cached.state.lastSeq
        pipeline.write(write) { [self] outcome in
            switch outcome {
            case .success(.applied):
                applied(plan)
                var after = cached.state
                after.lastSeq = batch.seq
                after.filter = plan.filter
                if let position = plan.position { after.position = position }
                var local = plan.local
                local.cache = VersionedIngestState(state: after, version: version)
                if refreshesGeo { local.geoWrittenAt = now }
                if renewsLifetime { local.lifetimeRenewedAt = now }
                drivers.withValue(driverID) { $0 = local }
                guard let (tripID, points) = plan.history else { return whenCommitted(.success(())) }
                whenWritten()
                appendTripFixes(tripID: tripID, driverID: driverID, points: points) { [self] result in
                    guard case .failure = result else { return whenCommitted(result) }
                    takeBack(driverID: driverID, seq: batch.seq, previous: previous, filter: cached.state.filter) {
                        whenCommitted(result)
                    }
                }
            case .success(.stale):
                // Someone else wrote the driver since the copy was made: plan again on what is stored.
                drivers.withValue(driverID) { $0?.cache = nil }
                Task {
                    do {
                        _ = try await ingest(driverID: driverID, batch: batch, client: client)
                        whenCommitted(.success(()))
                    } catch {
                        whenCommitted(.failure(error))
                    }
                }
            case .failure(let error):
                // The write may have been applied before the connection broke; the seq goes back either way.
                takeBack(driverID: driverID, seq: batch.seq, previous: previous, filter: cached.state.filter) {
                    whenCommitted(.failure(error))
                }
            }
        }
        return .writing(plan.result)
    }

    /// Forgets the driver's copy and puts the seq and the filter back, then calls `done`: the app retries the batch
    /// only after its stream closes, which `done` leads to, so the retry finds them already back.
    private func takeBack(
        driverID: String, seq: Int64, previous: Int64?, filter: LocationFilter, done: @escaping @Sendable () -> Void
    ) {
        drivers.withValue(driverID) { $0?.cache = nil }
        Task {
            try? await ingestState.rewind(driverID: driverID, from: seq, to: previous, filter: filter)
            done()
        }
    }

    /// Makes ready, when a driver's stream opens, what their batches are planned on: the trip they serve (`record`,
    /// just read from the trip store) and, in the scaled mode, this node's copy of their shared state. Their first
    /// batch then takes the fast path instead of the locked one with its trip lookup: a node taking over the
    /// drivers of one that died does that work while the streams open, not on their first positions. A failure
    /// only leaves the work to the first batch.
    ///
    /// It is also a repair: a trip record left stale by a failed write (a trip that ended while Redis refused) is
    /// brought to what the trip store says before the driver's first batch, as the reconciler would.
    public func prepare(driverID: String, activeTrip record: TripRecord?) async {
        do {
            try await ingestState.loadedTrip(record, driverID: driverID)
            _ = try await repairTrips(of: [driverID], active: [driverID: record].compactMapValues { $0 })
        } catch {
            return
        }
        await refreshCache(driverID: driverID)
    }

    /// `prepare` for many streams opening at once (`DriverSetUps`): their trips stored, repaired and their shared
    /// states read in a few round trips for all of them rather than a few each. `active` holds the trip store's
    /// answer (a driver absent there has no active trip).
    public func prepare(driverIDs: [String], active: [String: TripRecord]) async {
        guard !driverIDs.isEmpty else { return }
        do {
            try await ingestState.loadedTrips(driverIDs: driverIDs, active: active)
            _ = try await repairTrips(of: driverIDs, active: active)
        } catch {
            return
        }
        guard let pipeline else { return }
        let loaded = (try? await pipeline.load(driverIDs: driverIDs)) ?? [:]
        for driverID in driverIDs {
            drivers.withValue(driverID) { stored in
                var state = stored ?? DriverState()
                state.cache = loaded[driverID]
                // A state without a status says nothing of it: what this node saw last stays, for the restore.
                if let shared = loaded[driverID]?.state, shared.statusKnown {
                    state.presence = (shared.online, shared.degraded)
                }
                stored = state
            }
        }
    }

    /// Reads the driver's shared state into this node's copy (scaled mode), for the next batch to plan on.
    private func refreshCache(driverID: String) async {
        guard let pipeline else { return }
        let loaded = try? await pipeline.load(driverID: driverID)
        drivers.withValue(driverID) { stored in
            var state = stored ?? DriverState()
            state.cache = loaded
            if let shared = loaded?.state, shared.statusKnown { state.presence = (shared.online, shared.degraded) }
            stored = state
        }
    }

    /// The status to write back when a batch finds none stored (`statusKnown` false), or nil to leave it: Redis
    /// flushed (`FLUSHALL`), the key evicted under `maxmemory`, or Redis restarted empty lose it without closing the
    /// driver's stream, and the trip's after-commit write or another node's batch may have made the hash again
    /// (without a status) before this batch came. The status is the app's intent, kept by the app and by no
    /// durable store, so what stands in for it is, in order: this node's last sight of it (a driver it saw go
    /// offline stays offline), else the batch's own meaning: the app sends positions only while its driver is
    /// online (it refuses to go offline during a trip, and stops its location when it goes offline), so a driver
    /// sending them is online. A batch of an app that went offline, still on its way, may then make them online
    /// for at most the silence timeout, with no stream to show an offer on: the offer lapses and goes to the
    /// next driver. Degraded is taken as this node last saw it, else false, until the app reports it again.
    private func statusToRestore(driverID: String, before: DriverIngestState) -> (online: Bool, degraded: Bool)? {
        guard !before.statusKnown else { return nil }
        guard let presence = drivers[driverID]?.presence else { return (true, false) }
        return presence.online ? presence : nil
    }

    /// The status was written back online: the batch is planned on it and this node remembers it.
    private func restored(driverID: String, degraded: Bool, in before: inout DriverIngestState) {
        before.online = true
        before.degraded = degraded
        before.statusKnown = true
        drivers.withValue(driverID) { stored in
            var state = stored ?? DriverState()
            state.presence = (true, degraded)
            stored = state
        }
        metrics.driverStatusRestored()
    }

    /// Counts a batch's points and its published position, once it is applied, and shows the trip watch where the
    /// car on a trip under way was and when the phone took each position (matched: on the road when the cohort routes
    /// on roads): a live batch's newest, a backlog's every one.
    private func applied(_ plan: IngestPlan) {
        for (result, count) in plan.counts { plan.counters.add(count, result: result) }
        if let age = plan.publishedAge { metrics.positionPublished(age: age) }
        guard let tripWatch else { return }
        // Every car on a trip notes where it stands (or that it moves), so a car under way knows its road's jam. A
        // backlog says nothing of who stood beside the car then: judged as out of a jam.
        let jammed =
            plan.standing.map {
                standingCars.note(driverID: $0.driverID, edge: $0.edge, standing: $0.stands, now: $0.at)
            } ?? false
        if let (record, fixes, at) = plan.watched {
            tripWatch.observe(record, fixes: fixes, now: at, jammed: jammed)
        }
    }

    private func duplicate(_ batch: LocationBatch, client: ClientInfo?) -> IngestResult {
        metrics.locationPoints(batch.points.count, result: "duplicate", client: client)
        return IngestResult(
            ackSeq: batch.seq, applied: false, accepted: 0, dropped: ["duplicate": batch.points.count],
            published: nil)
    }

    /// What one batch changes, decided from the driver's state before it (trip known) and `now`.
    private struct IngestPlan: Sendable {
        var result: IngestResult
        /// Points by result ("accepted" or a drop reason), counted when the batch is applied.
        var counts: [String: Int]
        var counters: LocationCounters
        /// How old the newest fix was when published, if it was.
        var publishedAge: TimeInterval?
        var filter: LocationFilter
        var position: DriverLocation?
        var local: DriverState
        var geoUpdate: (Coordinate, Date)?
        var publish: (BusMessage, BusTopic)?
        var history: (String, [HistoryPoint])?
        /// The trip under way, the car's matched positions on it with when the phone took them, and when they
        /// arrived, for the trip watch.
        var watched: (TripRecord, [TripWatch.Fix], Date)?
        /// The car's edge (nil off the roads or off a trip) and whether it stands, for the jams the trip watch weighs.
        var standing: (driverID: String, edge: Int?, stands: Bool, at: Date)?
    }

    /// True when `fix` is of a car at rest (the phone's speed under 1 m/s): a car at rest does not change roads, so a
    /// fix snapped onto a road that does not meet the one the car was shown on is put on that one (or a street it
    /// joins) when it lies within the fix's noise, twice its accuracy, 10-25 m (`RoadNetwork.snap(_:onRoadOf:radius:)`).
    /// Snapped afresh, the noise of a phone standing at a pickup put the car on the road beside it, 20 m off, which
    /// the car had driven 18 s before, and the rider's pin called that live (issue 14, sixth pass). Held at the
    /// previous position, or put on the previous edge alone, a car shown a little short of where it then stopped, on
    /// the stretch before, aged as it stood (driverArrived freshness p99 from 2.2 s to 5.2 s).
    static func standsStill(_ fix: LocationPoint) -> Bool {
        fix.speed >= 0 && fix.speed < standingSpeed
    }

    /// The phone's speed under which a car is taken to stand, metres per second.
    static let standingSpeed = 1.0

    /// A moving car's fix snapped back onto a stretch of street the car was shown on (its pin, or the road path its
    /// car glided along) in the last `recentStretchSeconds` (either way), which driving on from where the car was last
    /// shown does not reach (`RoadNetwork.isReachable(from:to:)`), is put on the road the car is on when a point of it
    /// within the snap radius agrees with the fix's heading and is reached so
    /// (`RoadNetwork.snap(_:heading:radius:reachedFrom:)`), and the car was shown at most `reachWindowSeconds` before.
    /// Where a two-way street doubles back on itself, its other leg driven the other way runs the car's way a few
    /// metres off: snapped afresh, a noisy fix taken on the way back went onto the leg the car had driven 8 s before,
    /// and the rider's pin called that live (issue 14, seventh pass, Avenue Pasteur's hairpin in Monaco). A car that
    /// truly turned round on a street has no point of its road ahead running the new way, so it is shown turned round.
    static let reachWindowSeconds: TimeInterval = 10

    /// How long the stretches a car was shown on count as ones it has left (see `reachWindowSeconds`).
    static let recentStretchSeconds: TimeInterval = 30

    private func plan(
        _ batch: LocationBatch, of driverID: String, client: ClientInfo?, now: Date, shared before: DriverIngestState
    ) -> IngestPlan {
        var state = drivers[driverID] ?? DriverState()
        var shared = before
        shared.lastSeq = batch.seq
        if let client { state.client = client }
        let counters: LocationCounters
        if let known = state.counters, known.client == client {
            counters = known
        } else {
            counters = metrics.locationCounters(for: client)
            state.counters = counters
        }
        // Backlog points predate live ones already taken, so they are judged among themselves.
        var backlogFilter = LocationFilter()
        var kept: [LocationPoint] = []
        var dropped: [String: Int] = [:]
        /// The batch's newest point the phone stamped, and the last point of a keep-alive without a fix.
        var newestTaken: Date?
        var withoutFix: LocationPoint?
        for point in batch.points {
            // A fix from the future would become the filter's reference and freeze the car until then.
            if point.t.timeIntervalSince(now) > configuration.maximumClockAheadSeconds {
                dropped["future", default: 0] += 1
                continue
            }
            newestTaken = max(newestTaken ?? point.t, point.t)
            // Not a fix: the filter's reference stays the last real one.
            if batch.noFix {
                withoutFix = point
                continue
            }
            let verdict = batch.backlog ? backlogFilter.evaluate(point) : shared.filter.evaluate(point)
            switch verdict {
            case .accept: kept.append(point)
            case .reject(let reason): dropped[reason.rawValue, default: 0] += 1
            }
        }
        // A backlog newer than the last live fix (a dead zone's, flushed on reconnect) becomes the reference the next
        // live fix is judged from: judged from the fix before the dead zone, a multipath outlier sent live after it
        // passed any speed check (the allowance grows with the gap) and showed the car live on a road it had left.
        if batch.backlog, let newest = backlogFilter.lastAccepted,
            newest.t > shared.filter.lastAccepted?.t ?? .distantPast
        {
            shared.filter = LocationFilter(lastAccepted: newest, counts: shared.filter.counts)
        }
        // When the phone sent the batch tells how long its fixes took to arrive; an app that does not say lends
        // its newest fix's time, whose lag includes the fix's wait on the phone.
        if let sent = batch.sentAt ?? newestTaken {
            state.fixTimes.observe(deviceTime: sent, receivedAt: now, roundTrip: batch.roundTrip)
        }
        let serving = shared.online || shared.trip != nil
        if !serving {
            // Positions from a driver who is neither online nor on a trip move nothing.
            dropped["offline", default: 0] += kept.count + (withoutFix == nil ? 0 : 1)
            kept = []
            withoutFix = nil
        }
        var counts = dropped
        counts["accepted"] = kept.count
        if withoutFix != nil { counts["noFix"] = 1 }

        var published: DriverLocation?
        var newPosition: DriverLocation?
        var geoUpdate: (Coordinate, Date)?
        var publish: (BusMessage, BusTopic)?
        var publishedAge: TimeInterval?
        var watched: (TripRecord, [TripWatch.Fix], Date)?
        var standing: (driverID: String, edge: Int?, stands: Bool, at: Date)?
        if !batch.backlog, let newest = kept.last {
            let heading = newest.heading < 0 ? nil : newest.heading
            // The flags are read once per batch: the provider decides both the road snap and the ETA.
            let provider = routing.provider(for: .driver(driverID, client: state.client, at: newest.coordinate))
            let roads = provider is GraphRouteProvider ? routing.network : nil
            var snap = roads?.snap(newest.coordinate, heading: heading, radius: routing.snapRadius)
            var path: [Coordinate]?
            if let roads, let current = snap, let previous = state.snap, Self.standsStill(newest),
                !roads.isOnRoad(of: previous, current),
                let onItsRoad = roads.snap(
                    newest.coordinate, onRoadOf: previous, radius: min(max(2 * newest.accuracy, 10), 25))
            {
                snap = onItsRoad
            }
            state.recentEdges.removeAll { now.timeIntervalSince($0.at) > Self.recentStretchSeconds }
            if let roads, let current = snap, let previous = state.snap {
                var onward = current
                var jitter = roads.isJitterBack(from: previous, to: current)
                if !jitter, !Self.standsStill(newest), let shownAt = state.position?.receivedAt,
                    now.timeIntervalSince(shownAt) <= Self.reachWindowSeconds,
                    state.recentEdges.contains(where: { roads.isSameStretch($0.edge, current.edge) }),
                    !roads.isReachable(from: previous, to: current),
                    let reached = roads.snap(
                        newest.coordinate, heading: heading, radius: routing.snapRadius, reachedFrom: previous)
                {
                    onward = reached
                    jitter = roads.isJitterBack(from: previous, to: reached)
                }
                if jitter {
                    snap = previous
                } else {
                    snap = onward
                    let route = roads.pathRoute(from: previous, to: onward)
                    path = route?.coordinates
                    // The rider saw the car drive along every edge of the glide, not only those its pins fell on:
                    // a hairpin's short top stretch the car crossed between two fixes is a stretch it has left.
                    for edge in route?.edges ?? [] where state.recentEdges.last?.edge != edge {
                        state.recentEdges.append((edge, now))
                    }
                }
            }
            let location = DriverLocation(
                coordinate: snap?.coordinate ?? newest.coordinate,
                heading: heading ?? snap?.bearing ?? shared.position?.heading ?? 0,
                seq: batch.seq, receivedAt: now, fixedAt: state.fixTimes.fixedAt(deviceTime: newest.t, receivedAt: now))
            state.position = location
            newPosition = location
            state.snap = snap
            if let snap, state.recentEdges.last?.edge != snap.edge { state.recentEdges.append((snap.edge, now)) }
            if shared.online { geoUpdate = (location.coordinate, now) }
            if let record = shared.trip, record.trip.state.isActive, record.trip.state != .searching {
                published = location
                let target = record.trip.state == .onTrip ? record.trip.dropoff : record.trip.pickup
                // From the road the car is on, the way it faces: a car cannot turn round on the spot.
                let eta = RouteEstimator(provider: provider).seconds(
                    from: location.coordinate, heading: heading, to: target)
                let moved = DriverMoved(
                    location: location, etaSeconds: eta, etaTarget: EtaTarget(for: record.trip.state), path: path)
                if let text = try? moved.riderFrameText() {
                    publish = (BusMessage(kind: .disposable, text: text, publishedAt: now), .trip(record.trip.id))
                }
                publishedAge = now.timeIntervalSince(newest.t)
                if record.trip.state == .onTrip {
                    // Judged by when the phone took it: keep-alives a stalled socket delivers late and together
                    // still count the time a car stood.
                    watched = (record, [TripWatch.Fix(position: location.coordinate, takenAt: location.ageOrigin)], now)
                }
                standing = (driverID, snap?.edge, Self.standsStill(newest), now)
            } else {
                standing = (driverID, nil, false, now)
            }
        } else if let withoutFix, shared.online {
            // A keep-alive without a fix: the driver stays in the geo index where they were last seen, and
            // nothing is published or stored as a position, so no rider is shown it as fresh.
            geoUpdate = (shared.position?.coordinate ?? withoutFix.coordinate, now)
        }
        if batch.backlog, tripWatch != nil, !kept.isEmpty, let record = shared.trip, record.trip.state == .onTrip {
            watched = (
                record, matched(backlog: kept, of: driverID, client: state.client, now: now, state.fixTimes), now
            )
        }
        // The copy of the driver's trip lags the trip store: the node that committed a start brings it up to date only
        // after the commit and its publish, so the app may show the trip under way, and send fixes taken on it, while
        // this copy still says driverAssigned or driverArrived. The fixes of any trip the driver serves go to the
        // history, which keeps them only if the trip is under way as committed when they are written
        // (`appendTripFixes`): a batch is acknowledged once that judgement is durable.
        var history: (String, [HistoryPoint])?
        if let record = shared.trip, Self.mayBeUnderWay(record.trip.state), !kept.isEmpty {
            history = (
                record.trip.id,
                kept.map { HistoryPoint($0, receivedAt: now, backlog: batch.backlog) }
            )
        }
        return IngestPlan(
            result: IngestResult(
                ackSeq: batch.seq, applied: true, accepted: kept.count, dropped: dropped, published: published),
            counts: counts, counters: counters, publishedAge: publishedAge, filter: shared.filter,
            position: newPosition, local: state, geoUpdate: geoUpdate, publish: publish,
            history: history, watched: watched, standing: standing)
    }

    /// Whether a trip in `state` may be under way in the trip store while a node's copy still says `state`: the
    /// driver's trip from the accept on (a copy can miss the arrival and the start at once).
    static func mayBeUnderWay(_ state: TripState) -> Bool {
        state == .driverAssigned || state == .driverArrived || state == .onTrip
    }

    /// Appends a batch's fixes to `tripID`'s history, kept only if that trip is under way with `driverID` as they
    /// are written: judged by the store beside the trips (`UnderWayHistoryStore`) in the same transaction, or, for a
    /// history with no trips beside it (memory, unit tests), by asking the trip store first.
    private func appendTripFixes(
        tripID: String, driverID: String, points: [HistoryPoint],
        whenCommitted: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        if let underWayHistory {
            underWayHistory.append(tripID: tripID, underWayBy: driverID, points: points, whenCommitted: whenCommitted)
            return
        }
        let trips = self.trips
        let history = self.history
        Task {
            do {
                if let record = try await trips.record(id: tripID), record.driverID == driverID,
                    record.trip.state == .onTrip
                {
                    try await history.append(tripID: tripID, points: points)
                }
                whenCommitted(.success(()))
            } catch {
                whenCommitted(.failure(error))
            }
        }
    }

    /// `appendTripFixes`, returning once the points are durable or judged not the trip's.
    private func appendTripFixes(tripID: String, driverID: String, points: [HistoryPoint]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            appendTripFixes(tripID: tripID, driverID: driverID, points: points) { continuation.resume(with: $0) }
        }
    }

    /// A backlog's fixes (a dead zone's, flushed on reconnect) as the trip watch judges them: each matched to the
    /// road on its own when the cohort routes on roads, with when the phone took it on the server's clock. Judged
    /// as they arrive, a wrong turn taken in the dead zone is raised then, not from the live fixes after it (issue 41:
    /// Monaco's wrong turns caught at p99 33 s against 20 s).
    private func matched(
        backlog: [LocationPoint], of driverID: String, client: ClientInfo?, now: Date, _ fixTimes: FixTimeEstimator
    ) -> [TripWatch.Fix] {
        guard let newest = backlog.last else { return [] }
        let provider = routing.provider(for: .driver(driverID, client: client, at: newest.coordinate))
        let roads = provider is GraphRouteProvider ? routing.network : nil
        return backlog.map { point in
            let heading = point.heading < 0 ? nil : point.heading
            let snapped = roads?.snap(point.coordinate, heading: heading, radius: routing.snapRadius)
            return TripWatch.Fix(
                position: snapped?.coordinate ?? point.coordinate,
                takenAt: fixTimes.fixedAt(deviceTime: point.t, receivedAt: now))
        }
    }

    /// Online drivers with no trip, near `pickup`, nearest first, with their distance.
    public func availableDrivers(near pickup: Coordinate, excluding: Set<String>, limit: Int = 10) async throws
        -> [GeoHit]
    {
        let now = time.now()
        let hits = try await geo.nearest(to: pickup, radius: 20_000, limit: limit + excluding.count + 40, now: now)
        // Silence is judged here, from when the driver was last heard (a fix, or a keep-alive without one, by the
        // index's clock; else their last position), so a search never needs the index swept first; the sweep
        // (`evictSilentDrivers`, once a second) only keeps the index small.
        let states = try await ingestState.states(driverIDs: hits.map(\.driverID).filter { !excluding.contains($0) })
        return Array(
            hits.filter { hit in
                guard !excluding.contains(hit.driverID), let state = states[hit.driverID] else { return false }
                let silence = hit.silence ?? state.position.map { now.timeIntervalSince($0.receivedAt) } ?? .infinity
                return state.online && state.trip == nil && silence <= configuration.silenceTimeout
            }.prefix(limit))
    }

    /// Whether something done at `last` is due again `every` seconds later at `now`: also when `last` is after
    /// `now`, since the node's clock follows the wall clock and NTP may step it back.
    static func isDue(since last: Date, every seconds: TimeInterval, now: Date) -> Bool {
        let elapsed = now.timeIntervalSince(last)
        return elapsed < 0 || elapsed >= seconds
    }

    /// Takes drivers silent for `silenceTimeout` out of the geo index; returns them.
    public func evictSilentDrivers() async throws -> [String] {
        try await geo.evict(silentFor: configuration.silenceTimeout, now: time.now())
    }

    /// Fuzzed positions of drivers near `center`, cached per ~1 km area for `nearbyCacheSeconds`.
    public func nearbyCars(around center: Coordinate) async throws -> [Coordinate] {
        let now = time.now()
        let key = "\(Int((center.lat / 0.01).rounded(.down))):\(Int((center.lng / 0.01).rounded(.down)))"
        let seconds = configuration.nearbyCacheSeconds
        if let cached = nearby.withLock({ $0.cache[key] }), !Self.isDue(since: cached.at, every: seconds, now: now) {
            return cached.coordinates
        }
        let hits = try await geo.nearest(to: center, radius: configuration.nearbyRadiusMeters, limit: 50, now: now)
        return nearby.withLock { state in
            let coordinates = hits.map {
                Self.fuzz($0.coordinate, meters: configuration.nearbyFuzzMeters, &state.random)
            }
            state.cache[key] = (now, coordinates)
            if state.cache.count > 10_000 {
                state.cache = state.cache.filter { !Self.isDue(since: $0.value.at, every: seconds, now: now) }
            }
            return coordinates
        }
    }

    private static func fuzz(_ coordinate: Coordinate, meters: Double, _ random: inout AnyRandomNumberGenerator)
        -> Coordinate
    {
        let distance = Double.random(in: 0...meters, using: &random)
        let bearing = Double.random(in: 0..<(2 * .pi), using: &random)
        let dLat = distance * cos(bearing) / 111_195
        let dLng = distance * sin(bearing) / (111_195 * max(0.01, cos(coordinate.lat * .pi / 180)))
        return Coordinate(lat: coordinate.lat + dLat, lng: coordinate.lng + dLng)
    }
}
