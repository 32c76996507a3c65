import Foundation
import HailCore
import HailProtocol
import HailTime
import Observation

/// The driver app's runtime: online and offline, offers, the location pipeline and trip actions through
/// the durable outbox. A SwiftUI screen binds to it; the terminal app prints its `screen`.
///
/// Everything it does goes through injected seams (`DriverAPI`, `DriverChannel`, `LocationSource`,
/// `OutboxStore`, `Timeline`), so tests run it on a manual clock against fakes or the real server. It is the
/// screen's state and the glue between parts with one job each: the location uplink (positions up, the link
/// they travel on), the outbox runner (taps to the server), the stream loop (frames down, reconnects), the
/// ordered saves; every task any of them starts is tracked and ended by `shutdown()`.
@MainActor
@Observable
public final class DriverModel {
    /// True while the driver takes trips.
    public private(set) var isOnline = false
    /// The open offer, until accepted, declined or lapsed.
    public private(set) var offer: TripOffer?
    /// The trip as the server last confirmed it; a finished trip stays until the next one.
    public private(set) var trip: Trip?
    /// The phone's thermal state.
    public private(set) var thermal: ThermalState = .nominal
    /// True in Low Power Mode.
    public private(set) var lowPower = false
    /// The degraded flag the server last acknowledged, nil before the first status report.
    public private(set) var reportedDegraded: Bool?
    /// The state most recently written to the store: what a kill right now would leave behind.
    public private(set) var lastSaved: DriverSavedState?
    /// The last failure nobody else reports (status, storage), for logs.
    public private(set) var lastProblem: String?
    /// The revision of the navigation's route the server last took on the trip under way (`navigationRouted`), nil
    /// before one.
    public private(set) var routeRevisionTaken: Int64?
    /// The pickup PIN as the driver has typed it so far (digits only, at most 4), sent with "started".
    public private(set) var pickupPINEntry = ""

    /// True when the trip waits at the pickup for a PIN the driver has not fully typed: "Start" waits for it.
    public var needsPickupPIN: Bool {
        guard let trip, trip.requiresPickupPIN == true, trip.state == .driverArrived else { return false }
        return !PickupPIN.isWellFormed(pickupPINEntry)
    }
    /// The flags of this driver's cohort (`GET /v1/config`), fetched at start and after every reconnect: the
    /// location cap `policy` is held to. The defaults (no cap) until the server says, and from one without flags.
    public private(set) var config = ClientConfig.defaults(for: .driver)
    /// The telemetry samples waiting for the server, and what it accepted (with a `TelemetrySession`).
    public private(set) var telemetry: TelemetryLog

    /// Which link carries positions.
    public var link: DriverLink { uplink.link }
    /// Trip actions waiting for the server, and refusals waiting to be shown.
    public var outbox: Outbox { runner.outbox }
    /// Filter, batcher and what has been sent.
    public var pipeline: DriverLocationPipeline { uplink.pipeline }
    /// The policy the location source last confirmed applying.
    public var sourcePolicy: LocationPolicy? { uplink.sourcePolicy }

    @ObservationIgnored private let api: any DriverAPI
    @ObservationIgnored private let channel: any DriverChannel
    @ObservationIgnored private let store: any OutboxStore
    @ObservationIgnored private let timeline: Timeline
    @ObservationIgnored private let tasks = DriverTasks()
    @ObservationIgnored private let changeStream = ModelChanges<DriverScreen>()
    @ObservationIgnored private let saves: DriverSaves
    @ObservationIgnored private let uplink: LocationUplink
    @ObservationIgnored private let runner: OutboxRunner
    @ObservationIgnored private let streamLoop: DriverStreamLoop
    @ObservationIgnored private var statusOwed = false
    /// The offer the driver last turned down, which an answer over HTTP may still carry until the decline lands.
    @ObservationIgnored private var declinedOffer: TripOffer?
    /// Status reports that failed in a row, for the retry's backoff.
    @ObservationIgnored private var statusFailures = 0
    @ObservationIgnored private let random: DriverRandom
    @ObservationIgnored private let backoff: Backoff
    @ObservationIgnored private let telemetrySession: TelemetrySession?
    @ObservationIgnored private var battery: (level: Double?, state: BatteryState) = (nil, .unknown)
    @ObservationIgnored private var routeRevision: Int64 = 0

    /// Creates a model; call `start` to restore what was saved and carry on. A stream batch without an ack
    /// for `ackTimeout` seconds counts as a dead stream, its fixes going over HTTP: 3 s is above every round
    /// trip of measured cellular (p99 2.3 s, Uber 2019), so it fires on a lost packet that TCP is slow to
    /// retransmit (1 s at the median, 15 s at p95), not on a slow network. With a `telemetry` session the model
    /// samples the phone's power and sends it (`POST /v1/telemetry`) from `start()` on.
    public init(
        api: any DriverAPI,
        channel: any DriverChannel,
        location: any LocationSource,
        store: any OutboxStore,
        timeline: Timeline,
        random: any RandomNumberGenerator = SystemRandomNumberGenerator(),
        backoff: Backoff = .standard,
        bufferCapacity: Int = 1000,
        ackTimeout: TimeInterval = 3,
        telemetry: TelemetrySession? = nil
    ) {
        self.telemetrySession = telemetry
        self.telemetry = TelemetryLog(configuration: telemetry?.log ?? TelemetryLog.Configuration())
        self.api = api
        self.channel = channel
        self.store = store
        self.timeline = timeline
        let random = DriverRandom(random)
        self.random = random
        self.backoff = backoff
        streamLoop = DriverStreamLoop(channel: channel, backoff: backoff, timeline: timeline, random: random)
        let saves = DriverSaves(store: store)
        self.saves = saves
        uplink = LocationUplink(
            channel: channel, api: api, location: location, timeline: timeline, ackTimeout: ackTimeout,
            bufferCapacity: bufferCapacity, tasks: tasks, saves: saves)
        runner = OutboxRunner(
            api: api, timeline: timeline, backoff: backoff, random: random, tasks: tasks, saves: saves)
        // Weak: a part's task may still be winding down after a shut-down model is gone.
        saves.snapshot = { [weak self] in self?.savedState }
        saves.saved = { [weak self] state in
            self?.lastSaved = state
            self?.changed()
        }
        saves.failed = { [weak self] error in self?.lastProblem = "cannot save: \(error)" }
        uplink.stepTaken = { [weak self] in self?.changed() }
        uplink.connectivityBack = { [weak self] in self?.connectivityBack() }
        uplink.serverAnswered = { [weak self] in self?.streamLoop.serverAnswered() }
        uplink.offerHeard = { [weak self] offer in self?.handle(.offer(offer)) }
        uplink.problem = { [weak self] problem in self?.lastProblem = problem }
        runner.stepTaken = { [weak self] in self?.changed() }
        runner.confirmed = { [weak self] trip in
            self?.streamLoop.serverAnswered()
            self?.apply(trip)
        }
        runner.refused = { [weak self] in await self?.refreshTrip() }
    }

    private var savedState: DriverSavedState {
        DriverSavedState(outbox: outbox, batcher: pipeline.batcher.snapshot, trip: trip, online: isOnline)
    }

    // MARK: What the screen shows

    /// What the location pipeline is serving.
    public var activity: DriverActivity {
        switch trip?.state {
        case .driverAssigned?, .driverArrived?: return .toPickup
        case .onTrip?: return .onTrip
        default: return isOnline ? .waitingForTrip : .offline
        }
    }

    /// The policy for the current activity, heat and Low Power, held to the cohort's location cap.
    public var policy: LocationPolicy {
        LocationPolicy(activity: activity, thermal: thermal, lowPower: lowPower).capped(by: config.locationPolicyCap)
    }

    /// The oldest action tapped and not yet confirmed; one the trip already shows (its update came down
    /// the stream before the answer to the request) counts as confirmed.
    public var pendingAction: DriverIntent? {
        outbox.entries.first { !isShown($0.intent) }?.intent
    }

    private func isShown(_ intent: DriverIntent) -> Bool {
        guard let trip, trip.id == intent.tripID else { return false }
        switch intent.kind {
        case .accept: return trip.state != .searching
        case .arrived: return [.driverArrived, .onTrip, .completed].contains(trip.state)
        case .started: return [.onTrip, .completed].contains(trip.state)
        case .ended: return trip.state == .completed
        case .cancel: return trip.state == .cancelled || trip.state == .searching
        }
    }

    /// The screen as one value.
    public var screen: DriverScreen {
        let pending = pendingAction?.kind
        return DriverScreen(
            headline: DriverScreen.Headline(
                pending: pending, offerOpen: offer != nil, tripState: trip?.state, online: isOnline),
            online: isOnline, link: link, offerTripID: offer?.trip.id, offerExpiresAt: offer?.expiresAt,
            tripID: trip?.id, tripState: trip?.state, pending: pending, fare: trip?.fare,
            rejection: outbox.rejections.first.map {
                DriverScreen.Refusal(code: $0.code.map(APIError.Code.init(rawValue:)), reason: $0.reason)
            }, degraded: policy.degraded)
    }

    /// The screen after every step the model takes from now on, starting with the current one (unchanged screens
    /// included): for scripts, the simulated city and tests; a SwiftUI view observes the model instead.
    public func changes() -> AsyncStream<DriverScreen> {
        changeStream.stream(startingWith: screen)
    }

    /// Returns true once `condition` holds, judged now and within every later step (so a state that lasts one step
    /// counts), or false when the model shuts down or the waiting task is cancelled first.
    @discardableResult
    public func waitUntil(_ condition: @escaping @MainActor (DriverModel) -> Bool) async -> Bool {
        await changeStream.firstStep { [weak self] in self.map(condition) ?? false }
    }

    // MARK: Driver actions

    /// Restores after a launch or a kill: the saved outbox and points, the server's active trip, the
    /// online state, then replays the outbox.
    public func start() async {
        var wasOnline = false
        do {
            if let saved = try await store.load() {
                runner.restore(saved.outbox)
                uplink.restore(saved.batcher)
                trip = saved.trip
                wasOnline = saved.online
            }
        } catch {
            lastProblem = "cannot read the saved state: \(error)"
        }
        await refreshConfig()
        await refreshTrip()
        changed()
        if wasOnline || (trip?.state.isActive ?? false) {
            await goOnline()
        } else {
            runner.kick()
        }
        startTelemetryIfNeeded()
    }

    /// Goes online: status to the server, location on, the stream opened.
    public func goOnline() async {
        isOnline = true
        await saves.save()
        changed()
        await sendStatus()
        refreshPolicy()
        uplink.listen()
        if !tasks.isRunning(.stream) {
            tasks.start(.stream) { [weak self] _ in
                guard let loop = self?.streamLoop else { return }
                await loop.run { event in self?.streamEvent(event) }
            }
        }
        runner.kick()
    }

    /// Goes offline: no offers, location off, the stream closed. Unsent actions stay in the outbox. Not
    /// during a trip: the rider is watching the car, so the trip must end or be cancelled first.
    public func goOffline() async {
        guard !(trip?.state.isActive ?? false) else { return }
        isOnline = false
        offer = nil
        refreshPolicy()
        tasks.cancel(.stream)
        await channel.disconnect()
        uplink.linkDown()
        await saves.save()
        changed()
        await sendStatus()
    }

    /// Accepts the open offer through the outbox.
    public func accept() async {
        guard let offer else { return }
        self.offer = nil
        await runner.enqueue(DriverIntent(.accept, tripID: offer.trip.id))
    }

    /// Turns down the open offer, so the next driver is asked at once; best effort.
    public func decline() async {
        guard let offer else { return }
        self.offer = nil
        declinedOffer = offer
        changed()
        try? await api.decline(tripID: offer.trip.id)
    }

    /// The driver typed in the PIN field: keeps the digits, at most 4 of them.
    public func enterPickupPIN(_ text: String) {
        pickupPINEntry = String(text.filter { $0.isASCII && $0.isNumber }.prefix(4))
        changed()
    }

    /// Taps arrived, started, ended or cancel on the current trip; the screen shows it at once. "Started" on a trip
    /// that requires the rider's PIN waits until all 4 digits are typed, and sends them.
    public func tap(_ kind: DriverIntent.Kind) async {
        guard let trip, kind != .accept else { return }
        if kind == .started, needsPickupPIN { return }
        // The rider at the pickup sees the car where it stopped, not where the last interval left it; at the start,
        // where it stands as it drives off (it may have crept to the kerb under the distance filter). At the end the
        // fix of the tap goes with "ended" (below), so the fare runs to where the car stopped: the fix taken just
        // before the tap, not yet handed to the app, went live after "ended" and missed the fare (a 1,431 m stalls
        // trip charged 1,381 m, issue 14).
        if kind == .arrived || kind == .started || kind == .ended { await uplink.sendFreshFix() }
        // The fixes taken before the rider got in are no part of the fare: those still on the phone go no further.
        if kind == .started { uplink.tripStarted() }
        // The fixes of the trip the server has not acknowledged go with "ended", so the fare is priced on the whole
        // path whatever becomes of their batches; waiting positions go now too, for the rider's map.
        let owed = kind == .ended ? uplink.pathNotAcknowledged() : []
        uplink.tripStateChanged()
        let pin = kind == .started && trip.requiresPickupPIN == true ? pickupPINEntry : nil
        // A wrong PIN is refused and must be typed again; a new attempt starts from an empty field.
        if pin != nil { pickupPINEntry = "" }
        await runner.enqueue(DriverIntent(kind, tripID: trip.id, path: owed.isEmpty ? nil : owed, pin: pin))
    }

    /// The route the navigation follows now on the trip under way, at its start and after each re-route: sent to the
    /// server (`PUT /v1/trips/{id}/route`), which judges the car against it rather than its own plan, so a re-route
    /// is never taken for a deviation. Its revision is the phone's clock in milliseconds (never below the last one),
    /// which grows across app launches; a newer route replaces one still on its way, and a route the server could
    /// not take is retried (1 s, doubling to 30 s) while the trip is under way. A refusal, or a server without the
    /// route, ends it.
    public func navigationRouted(_ path: [Coordinate]) {
        guard let trip, trip.state == .onTrip, path.count >= 2 else { return }
        let clock = Int64((timeline.now().timeIntervalSince1970 * 1000).rounded(.down))
        routeRevision = max(routeRevision + 1, clock)
        let report = TripRouteReport(revision: routeRevision, coordinates: path)
        let tripID = trip.id
        tasks.start(.route) { [weak self] _ in await self?.sendRoute(report, tripID: tripID) }
    }

    private func sendRoute(_ report: TripRouteReport, tripID: String) async {
        var wait: TimeInterval = 1
        while !Task.isCancelled, trip?.id == tripID, trip?.state == .onTrip {
            do {
                try await api.reportRoute(tripID: tripID, report)
                routeRevisionTaken = report.revision
                changed()
                return
            } catch let error as CallError where error.isRejection {
                lastProblem = "route not taken: \(error)"
                changed()
                return
            } catch {
                lastProblem = "cannot send the route: \(error)"
                changed()
            }
            do { try await timeline.sleep(until: timeline.now().addingTimeInterval(wait)) } catch { return }
            wait = min(wait * 2, 30)
        }
    }

    /// The screen has shown the oldest refusal.
    public func dismissRejection() async {
        await runner.dismissRejection()
    }

    /// The phone's thermal state changed.
    public func setThermal(_ state: ThermalState) {
        thermal = state
        refreshPolicy()
    }

    /// Low Power Mode changed.
    public func setLowPower(_ on: Bool) {
        lowPower = on
        refreshPolicy()
    }

    /// Reachability says the network is back: retry what waits for it now rather than at its backoff.
    public func networkMayBeBack() {
        runner.connectivityRestored()
    }

    /// Stops every task, as a killed app would; what was saved stays saved.
    public func shutdown() async {
        tasks.cancelAll()
        uplink.shutdown()
        runner.shutdown()
        await channel.disconnect()
        changeStream.finish()
    }

    // MARK: Stream

    private func streamEvent(_ event: DriverStreamLoop.Event) {
        switch event {
        case .connected(let reconnected):
            // A reconnect may be to a server that restarted and forgot who is online (it keeps that in memory):
            // without a fresh status this driver would get no offers until it toggled.
            if reconnected, isOnline { statusOwed = true }
            uplink.linkUp(.stream)
            if reconnected, activity == .waitingForTrip { uplink.waitingDriverReconnected() }
            // The stream replays only an active trip, and a change is published once, to whoever is connected:
            // a trip that ended while this socket was down is learned from the server. Beside the frames, not
            // before them: acks must not wait on a slow request. The cohort's flags too: a change reaches a
            // running app within one reconnect.
            tasks.spawn { [weak self] in
                await self?.refreshConfig()
                await self?.refreshTrip()
            }
        case .frame(let frame):
            handle(frame)
        case .lost:
            uplink.streamLost(online: isOnline)
        case .refused(let code):
            // Going online again starts a new loop (a fresh token, say).
            uplink.streamLost(online: isOnline)
            tasks.cancel(.stream)
            lastProblem = "the server closed the stream (\(code)); not reconnecting"
            changed()
        }
    }

    private func connectivityBack() {
        if statusOwed { tasks.spawn { [weak self] in await self?.sendStatus() } }
        runner.connectivityRestored()
    }

    private func handle(_ frame: DriverServerFrame) {
        switch frame {
        case .hello:
            break
        case .offer(let offer):
            if trip?.state.isActive ?? false {
                // The server offers trips only to drivers it believes free: the trip shown may have ended
                // without word reaching us. Ask, then show the offer if the trip is over.
                tasks.spawn { [weak self] in
                    await self?.refreshTrip()
                    self?.show(offer)
                }
            } else {
                show(offer)
            }
        case .tripUpdated(let trip):
            apply(trip)
        case .ack(let ack):
            uplink.acknowledged(ack.seq)
        case .offerWithdrawn(let tripID):
            // Gone on the server (lapsed, or the trip stopped searching): an accept now would only be refused.
            guard offer?.trip.id == tripID else { return }
            offer = nil
            changed()
        }
    }

    private func show(_ offer: TripOffer) {
        guard !(trip?.state.isActive ?? false), outbox.entries.allSatisfy({ $0.intent.kind != .accept }) else {
            return
        }
        // Every answer over HTTP repeats an open offer until it is answered or lapses; the one declined stays gone.
        guard offer != self.offer, offer != declinedOffer else { return }
        self.offer = offer
        let timeline = self.timeline
        tasks.start(.offerLapse) { [weak self] _ in
            do { try await timeline.sleep(until: offer.expiresAt) } catch { return }
            guard let self, self.offer?.trip.id == offer.trip.id else { return }
            self.offer = nil
            self.changed()
        }
        changed()
    }

    // MARK: Trip

    private func apply(_ update: Trip) {
        if let current = trip, current.id == update.id, update.version <= current.version { return }
        // Another trip's end (a change delivered again after a server restart, say) says nothing about the trip
        // this driver is on now: it never takes its place.
        if let current = trip, current.id != update.id, current.state.isActive, !update.state.isActive { return }
        let stateChanged = trip?.id != update.id || trip?.state != update.state
        trip = update
        if offer?.trip.id == update.id { offer = nil }
        let accepted = stateChanged && update.state == .driverAssigned
        if stateChanged, !accepted { uplink.tripStateChanged() }
        refreshPolicy()
        // Accepted: the rider's first pin is where the car is now, not the waiting driver's last fix. What the
        // waiting pace held goes with the fix of this moment, in one batch whose newest it is, so the rider is
        // never shown the held one (up to 50 m behind a car that stood after moving less than the filter).
        if accepted {
            tasks.spawn { [weak self] in
                guard let self else { return }
                if await !self.uplink.sendFreshFix() { self.uplink.tripStateChanged() }
            }
        }
        tasks.spawn { [saves] in await saves.save() }
    }

    /// Asks the server for the driver's active trip. When it has none while the screen shows one, that trip
    /// ended without word reaching us (a rider's cancel published while the socket was down): it is read by
    /// id, so the screen says how it ended and the driver is free for offers.
    private func refreshTrip() async {
        let active: Trip?
        do {
            active = try await api.activeTrip()
        } catch {
            lastProblem = "cannot ask for the active trip: \(error)"
            return
        }
        if let active {
            apply(active)
        } else if let shown = trip, shown.state.isActive {
            await settle(tripID: shown.id)
        }
    }

    /// Applies the last version of a trip the server no longer reports as active (never an older one).
    private func settle(tripID: String) async {
        do {
            let last = try await api.trip(id: tripID)
            // A trip accepted while the answer was on its way is not replaced by the one that ended.
            guard trip?.id == tripID else { return }
            let wasActive = trip?.state.isActive ?? false
            apply(last)
            // Free again, and maybe on a server that restarted and forgot where this car stands: the reconnect
            // did not send the waiting driver's last fix, since the trip was still shown then.
            if wasActive, activity == .waitingForTrip { uplink.waitingDriverReconnected() }
        } catch let failure as CallError where failure.isRejection {
            // No longer ours to read (the driver's own cancel put it back to searching): nothing to show. Kept
            // while actions wait: their answers say more.
            guard let current = trip, current.id == tripID, current.state.isActive, outbox.entries.isEmpty else {
                return
            }
            trip = nil
            uplink.tripStateChanged()
            refreshPolicy()
            await saves.save()
        } catch {
            lastProblem = "cannot read trip \(tripID): \(error)"
        }
    }

    private func refreshPolicy() {
        uplink.apply(policy, riderWatching: activity == .toPickup || activity == .onTrip)
        if isOnline, reportedDegraded != policy.degraded {
            tasks.spawn { [weak self] in await self?.sendStatus() }
        }
        changed()
    }

    // MARK: Flags and telemetry

    /// The phone's battery, heat and Low Power changed (`DevicePowerObserver`): heat and Low Power set the policy,
    /// and the next telemetry sample carries all of it.
    public func devicePowerChanged(_ power: DevicePower) {
        battery = (power.batteryLevel, power.batteryState)
        if thermal != power.thermal { setThermal(power.thermal) }
        if lowPower != power.lowPower { setLowPower(power.lowPower) }
    }

    /// Fetches the cohort's flags; a new location cap applies at once. A server without the route means the
    /// defaults, no answer keeps what we had.
    private func refreshConfig() async {
        let fresh: ClientConfig
        do {
            fresh = try await api.config() ?? ClientConfig.defaults(for: .driver)
        } catch {
            return
        }
        guard fresh != config else { return }
        config = fresh
        refreshPolicy()
    }

    private func startTelemetryIfNeeded() {
        guard let session = telemetrySession, !tasks.isRunning(.telemetry) else { return }
        let timeline = self.timeline
        tasks.start(.telemetry) { [weak self] _ in
            var next = timeline.now()
            while !Task.isCancelled {
                await self?.sampleTelemetry(session)
                next = next.addingTimeInterval(session.log.sampleInterval)
                do { try await timeline.sleep(until: next) } catch { return }
            }
        }
    }

    /// One sample (active while online, degraded as the policy is), and the batch it makes due, if any.
    private func sampleTelemetry(_ session: TelemetrySession) async {
        let power = DevicePower(
            batteryLevel: battery.level, batteryState: battery.state, thermal: thermal, lowPower: lowPower)
        let sample = DeviceSample(power, at: timeline.now(), active: isOnline, degraded: isOnline && policy.degraded)
        let due = telemetry.record(sample)
        changed()
        guard let batch = due else { return }
        do {
            try await api.sendTelemetry(session.body(batch))
            telemetry.accepted()
        } catch let failure as CallError where failure.isRejection {
            telemetry.refused()
        } catch {
            telemetry.failed()
        }
        changed()
    }

    // MARK: Plumbing

    /// Reports the status the screen shows. One the server could not take (a 503 while its storage is away, no
    /// answer) is owed: sent again at the backoff (the server's `Retry-After` at least), and at once when a link comes
    /// up or a batch goes through over HTTP. Without the retry a driver whose report failed while on the stream stayed
    /// out of dispatch until their stream happened to reconnect (the fault suite's Redis restarted empty). A refusal
    /// is not retried on a timer: the same request would be refused again; a reconnect still sends it.
    private func sendStatus() async {
        let degraded = policy.degraded
        do {
            try await api.setStatus(DriverStatusRequest(online: isOnline, degraded: degraded))
            reportedDegraded = degraded
            statusOwed = false
            statusFailures = 0
            tasks.cancel(.statusRetry)
            streamLoop.serverAnswered()
            changed()
        } catch let failure as CallError where failure.isRejection {
            statusOwed = true
            lastProblem = "cannot report the status: \(failure)"
            changed()
        } catch {
            statusOwed = true
            lastProblem = "cannot report the status: \(error)"
            retryStatus(retryAfter: (error as? CallError)?.retryAfter)
            changed()
        }
    }

    /// Sends the owed status again after the backoff's next wait.
    private func retryStatus(retryAfter: TimeInterval?) {
        statusFailures += 1
        let attempt = statusFailures
        let wait = random.draw { backoff.delay(afterAttempt: attempt, retryAfter: retryAfter, using: &$0) }
        let due = timeline.now().addingTimeInterval(wait)
        let timeline = self.timeline
        tasks.start(.statusRetry) { [weak self] _ in
            do { try await timeline.sleep(until: due) } catch { return }
            guard let self, self.statusOwed else { return }
            await self.sendStatus()
        }
    }

    private func changed() {
        changeStream.stepTaken(screen)
    }
}
