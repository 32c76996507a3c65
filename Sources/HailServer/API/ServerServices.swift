import Foundation
import HailCore
import HailProtocol
import HailRoads
import HailTime

/// Everything the endpoints and streams share: stores, bus, fleet, authority, dispatch, tokens, time.
public struct ServerServices: Sendable {
    /// The settings.
    public let configuration: ServerConfiguration
    /// Token minting and verification.
    public let tokens: TokenAuthority
    /// The injected clock.
    public let time: Timeline
    /// Metrics by name.
    public let metrics: ServerMetrics
    /// Durable trips.
    public let trips: any TripStore
    /// Trip position history.
    public let history: any LocationHistoryStore
    /// Pub/sub to sockets.
    public let bus: any TripBus
    /// Drivers, positions, ingest.
    public let fleet: Fleet
    /// The trip authority.
    public let authority: TripAuthority
    /// Dispatch.
    public let dispatcher: Dispatcher
    /// Repairs derived state after a fault (`Reconciler`), run beside dispatch.
    public let reconciler: Reconciler
    /// The road network and the route provider per cohort (advice only).
    public let routing: ServerRouting
    /// New trip ids.
    public let newTripID: @Sendable () -> String
    /// The push notifier, when pushes are configured.
    public let push: PushNotifier?
    /// Where drivers' cards (name, car, plate) come from.
    public let directory: any DriverDirectory
    /// The operator's fleet feed behind `/v1/fleet/live`, shared by every viewer on this node.
    public let operatorFeed: OperatorFeed
    /// `POST /v1/telemetry`'s own rate per principal (`RateLimits.telemetryPerToken`).
    public let telemetryLimit: PrincipalRateLimit
    /// Watches this node's clock against the deployment's shared one, when it has one (the scaled shape).
    public let clockMonitor: ClockOffsetMonitor?
    /// Whether the node can serve (`GET /readyz`): its backends probed with short deadlines; the drain hook.
    public let readiness: Readiness
    /// When the scrape-time gauges were last counted.
    let scrapeThrottle = ScrapeThrottle()

    /// Throws when some of `parts` are shared by every node and others are this process's own.
    static func checkScopes(_ parts: [(name: String, scope: StateScope)]) throws(ServerServicesError) {
        let shared = parts.filter { $0.scope == .deployment }.map(\.name)
        let local = parts.filter { $0.scope == .process }.map(\.name)
        guard shared.isEmpty || local.isEmpty else { throw .mixedScopes(shared: shared, local: local) }
    }

    /// Wires the services together: after every committed change the fleet learns who serves which trip
    /// and dispatch starts or stops searching. Refuses (`ServerServicesError`) a mix of state shared by every
    /// node with state this process keeps alone (Redis offers with in-memory search leases, a Redis bus with an
    /// in-memory geo index...): each would work alone and fail together, silently, with two nodes.
    public static func make(
        configuration: ServerConfiguration,
        tokens: TokenAuthority,
        time: Timeline,
        metrics: ServerMetrics = ServerMetrics(),
        trips: any TripStore,
        history: any LocationHistoryStore,
        bus: any TripBus = InProcessTripBus(),
        geo: any GeoIndex = MemoryGeoIndex(),
        offers: (any OfferStore)? = nil,
        ingestState: any DriverIngestStore = MemoryDriverIngestStore(),
        ingestPipeline: (any DriverIngestPipeline)? = nil,
        searchLeases: (any SearchLeases)? = nil,
        directory: any DriverDirectory = GeneratedDriverDirectory(),
        clockReference: (any ClockReference)? = nil,
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        probes: [BackendProbe]? = nil,
        newTripID: @escaping @Sendable () -> String = { "trip-" + UUID().uuidString.lowercased() }
    ) async throws(ServerServicesError) -> ServerServices {
        var parts: [(name: String, scope: StateScope)] = [
            ("the bus", bus.scope), ("the geo index", geo.scope), ("offers", offers?.scope ?? .process),
            ("the drivers' ingest state", ingestState.scope), ("search leases", searchLeases?.scope ?? .process),
        ]
        if let ingestPipeline { parts.append(("the ingest pipeline", ingestPipeline.scope)) }
        try checkScopes(parts)
        let routing = ServerRouting(configuration: configuration, metrics: metrics, time: time)
        let authority = TripAuthority(store: trips, bus: bus, time: time, metrics: metrics)
        let tripWatch = TripWatch(planner: { from, heading, to in
            Self.plannedRoute(routing, from: from, heading: heading, to: to)
        })
        let fleet = Fleet(
            configuration: configuration.fleet, geo: geo, trips: trips, history: history, bus: bus, time: time,
            metrics: metrics, routing: routing, random: random, ingestState: ingestState,
            pipeline: ingestPipeline, tripWatch: tripWatch)
        // An alert becomes a change of the trip (its log line) and a frame on its stream, off the ingest path.
        tripWatch.onAlert { tripID, alert in
            Task { _ = try? await authority.raise(alert, tripID: tripID) }
        }
        // One process alone: its leases on its own clock, and its offers fenced by them.
        let leases = searchLeases ?? MemorySearchLeases(now: { time.now() })
        let dispatcher = Dispatcher(
            configuration: configuration.dispatch, authority: authority, fleet: fleet, bus: bus, directory: directory,
            time: time, metrics: metrics, routing: routing,
            offers: offers ?? MemoryOfferStore(leases: leases as? MemorySearchLeases), leases: leases)
        await authority.observe { record, previous in
            if record.trip.state != .onTrip {
                tripWatch.forget(tripID: record.trip.id)
            } else if let route = record.route, route != previous?.route {
                // A route the driver reported, at once on this node; other nodes take it from the record.
                tripWatch.replan(tripID: record.trip.id, path: route.path, revision: route.revision)
            }
            await fleet.tripChanged(record, previousDriverID: previous?.driverID)
            await dispatcher.tripChanged(record, previousDriverID: previous?.driverID)
        }
        let push: PushNotifier?
        if let factory = configuration.pushSender {
            // The APNs sender retries and backs off per push itself; the notifier hands each delivery over once.
            push = PushNotifier(
                sender: factory(PushContext(tokens: trips, metrics: metrics, time: time)), time: time,
                attempts: 1)
        } else {
            push = PushNotifier.fromEnvironment(time: time)
        }
        let reconciler = Reconciler(
            configuration: configuration.reconcile, fleet: fleet, trips: trips, authority: authority, time: time,
            metrics: metrics)
        let services = ServerServices(
            configuration: configuration, tokens: tokens, time: time, metrics: metrics, trips: trips, history: history,
            bus: bus, fleet: fleet, authority: authority, dispatcher: dispatcher, reconciler: reconciler,
            routing: routing, newTripID: newTripID, push: push, directory: directory,
            clockMonitor: clockReference.map { ClockOffsetMonitor(reference: $0, time: time, metrics: metrics) },
            readiness: Readiness(
                probes: probes ?? [BackendProbe(name: "storage") { _ = try await trips.record(id: "readyz") }]))
        if let push {
            await push.reportDeliveries(to: metrics)
            // The lock screen shows what the rider's app would: the live ETA and the driver's last position.
            await push.enrich { await services.withLiveFields($0) }
            // A running trip's lock screen gets a fresh ETA well before its stale date while the driver moves.
            await push.refreshActivities(
                every: .seconds(Int64(ApplePushPayload.refreshEvery)), read: { try? await trips.record(id: $0) })
            await push.attach(to: authority)
        }
        return services
    }

    private init(
        configuration: ServerConfiguration, tokens: TokenAuthority, time: Timeline, metrics: ServerMetrics,
        trips: any TripStore, history: any LocationHistoryStore, bus: any TripBus, fleet: Fleet,
        authority: TripAuthority, dispatcher: Dispatcher, reconciler: Reconciler, routing: ServerRouting,
        newTripID: @escaping @Sendable () -> String, push: PushNotifier?, directory: any DriverDirectory,
        clockMonitor: ClockOffsetMonitor?,
        readiness: Readiness
    ) {
        self.clockMonitor = clockMonitor
        self.readiness = readiness
        self.configuration = configuration
        self.tokens = tokens
        self.time = time
        self.metrics = metrics
        self.trips = trips
        self.history = history
        self.bus = bus
        self.fleet = fleet
        self.authority = authority
        self.dispatcher = dispatcher
        self.reconciler = reconciler
        self.routing = routing
        self.newTripID = newTripID
        self.push = push
        self.directory = directory
        telemetryLimit = PrincipalRateLimit(
            name: "telemetryPerToken", rate: configuration.rateLimits.telemetryPerToken, metrics: metrics)
        operatorFeed = OperatorFeed(
            time: time, metrics: metrics, trips: trips, fleet: fleet, routing: routing, directory: directory)
    }

    /// The estimator for callers no cohort names (the default provider).
    public var estimator: RouteEstimator { routing.estimator(for: nil) }

    /// The estimator for a caller's cohort.
    public func estimator(for key: CohortKey) -> RouteEstimator { routing.estimator(for: key) }

    /// The flags in force (reloaded by `hail server` on SIGHUP).
    public var flags: FlagsStore { routing.flags }

    /// Who `principal` is to the flags: their role and id, their app, and where they are (a driver's last
    /// position, a rider's active trip's pickup), read from the stores only when the flags name regions.
    public func cohortKey(for principal: Principal, client: ClientInfo?) async -> CohortKey {
        var key = CohortKey(role: principal.role, subject: principal.subject, client: client)
        // Without regions the place decides nothing, and a polling rider would pay a read on every poll.
        guard !flags.current.regions.regions.isEmpty else { return key }
        switch principal.role {
        case .driver:
            key.position = await fleet.position(driverID: principal.subject)?.coordinate
        case .rider:
            key.position = (try? await trips.activeRecord(riderID: principal.subject))?.trip.pickup
        default:
            break
        }
        return key
    }

    /// Sets the gauges read at scrape time: the online drivers whose location is degraded now, by region, among
    /// the drivers this node ingests (every driver, on one node; in a scaled deployment, sum over the nodes). At
    /// most once every `ScrapeThrottle.interval` of the server's clock, since `/metrics` answers anyone and the
    /// count reads every driver's status.
    public func updateScrapeGauges() async {
        guard scrapeThrottle.due(at: time.now()) else { return }
        let flags = flags.current
        var byRegion: [String: Int] = [:]
        for driverID in await fleet.knownDriverIDs() {
            let status = await fleet.status(driverID: driverID)
            guard status.online, status.degraded else { continue }
            let position = await fleet.position(driverID: driverID)?.coordinate
            byRegion[flags.region(containing: position) ?? ClientLabelBounds.unknown, default: 0] += 1
        }
        metrics.driversDegraded(byRegion, regions: flags.regions.names)
    }

    /// The pricing table.
    public var pricing: PricingTable { configuration.pricing }

    /// Resumes what was in flight when the process stopped: the searches of searching trips, and who
    /// serves which active trip.
    public func resume() async throws {
        let active = try await trips.activeRecords()
        for record in active { await fleet.tripChanged(record, previousDriverID: nil) }
        await dispatcher.resume(active)
    }

    /// The trip with what only this moment knows: the driver's last published position and a live ETA.
    ///
    /// The ETA uses the provider of the driver app's cohort, the same one their driverMoved frames use:
    /// those frames go once to everyone watching the trip, so the snapshot must agree with them.
    public func withLiveFields(_ trip: Trip) async -> Trip {
        var trip = trip
        guard trip.state.isActive, let driverID = trip.driver?.id,
            let position = await fleet.position(driverID: driverID)
        else { return trip }
        trip.driverLocation = position
        let target = trip.state == .onTrip ? trip.dropoff : trip.pickup
        if trip.state == .driverAssigned || trip.state == .onTrip {
            let client = await fleet.client(driverID: driverID)
            trip.etaSeconds = estimator(for: .driver(driverID, client: client, at: position.coordinate))
                .seconds(from: position.coordinate, heading: position.heading, to: target)
        }
        return trip
    }

    /// The fare for a trip ending now, with the receipt it was priced on: the driven distance from its position
    /// history (in device-time order, backlog included) and the time since it started, in the whole metres and
    /// seconds the tariff charges.
    ///
    /// Fixes flushed from the phone's buffer (backlog) taken before the trip's first live fix, where the car stood as
    /// it started, were taken on the way to the pickup and are not charged, nor are those older than a fix the
    /// server already held when they came (`ChargedFixes`).
    ///
    /// With a road network the history is map-matched first, so GPS noise zigzagging across the street
    /// is not charged; a match that fails its checks leaves the raw path length, as without roads.
    ///
    /// With no history at all (a phone that never got a fix on the way) the straight-line estimate from
    /// pickup to dropoff stands in, so the rider is charged for the trip, not the minimum.
    public func finalFare(tripID: String) async throws(APIError) -> (fare: Money, receipt: TripReceipt) {
        do {
            guard let record = try await trips.record(id: tripID) else {
                throw APIError.notFound("there is no trip \(tripID)")
            }
            let stored = try await history.history(tripID: tripID)
            // An unverified start (no fresh fix to weigh) is a start too: only its `detail` says so.
            let started = try await trips.events(tripID: tripID).last { $0.intent == "started" }?.at
            // A backlog taken before the fix the trip began from (where the car stood at the start) was taken on the
            // way to the pickup: flushed from the phone's buffer as the trip started, it reached the history after
            // the start (71 m of the way charged on a 2,306 m stalls trip, every run). One older than a fix already
            // held is a detour the phone made up afterwards.
            let points = ChargedFixes.select(stored, startedAt: started)
            let distance =
                points.count >= 2
                ? (routing.network?.matchedDistance(
                    points.map { TraceFix(coordinate: $0.coordinate, heading: $0.heading, speed: $0.speed) })
                    ?? points.map(\.coordinate).pathLength)
                : estimator.distance(from: record.trip.pickup, to: record.trip.dropoff)
            let duration = started.map { time.now().timeIntervalSince($0) } ?? 0
            guard
                let fare = pricing.fare(for: record.trip.productID, distanceMeters: distance, durationSeconds: duration)
            else {
                throw APIError.invalidState("trip \(tripID) has a product with no tariff")
            }
            let receipt = TripReceipt(
                distanceMeters: Int(max(0, distance).rounded()), durationSeconds: Int(max(0, duration).rounded()))
            return (fare, receipt)
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(code: .unavailable, message: "storage is unavailable: \(error)")
        }
    }
}

extension ServerServices {
    /// The route a trip under way is judged against, from `from` to `to` for a car facing `heading` (one facing away
    /// goes round the block first, which is no deviation): the road provider's path, or nil without a road network
    /// (a straight line is no route a car could be judged against).
    static func plannedRoute(_ routing: ServerRouting, from: Coordinate, heading: Double?, to: Coordinate)
        -> [Coordinate]?
    {
        let provider = routing.provider(for: nil)
        guard provider is GraphRouteProvider, let advice = provider.advise(from: from, heading: heading, to: to),
            advice.coordinates.count >= 2
        else { return nil }
        return advice.coordinates
    }

    /// Starts watching a trip that has just started from where its car is (its last position, else the pickup):
    /// the plan is made here, on the caller's task, so a trip is judged against its plan from its first position on.
    public func watchStartedTrip(_ record: TripRecord, driverID: String) async {
        guard let tripWatch = fleet.tripWatch else { return }
        let position = await fleet.position(driverID: driverID)
        let plan = Self.plannedRoute(
            routing, from: position?.coordinate ?? record.trip.pickup, heading: position?.heading,
            to: record.trip.dropoff)
        tripWatch.start(record, plan: plan, now: time.now())
    }

    /// A new pickup PIN from the system's generator: a code the driver must not be able to guess.
    public func newPickupPIN() -> String {
        var random = SystemRandomNumberGenerator()
        return PickupPIN.make(using: &random)
    }
}
