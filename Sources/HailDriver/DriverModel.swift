import Foundation
import HailCore
import HailProtocol
import HailTime
import Observation

/// The driver app's runtime: online and offline, offers, the location pipeline and trip actions through
/// the durable outbox. A SwiftUI screen binds to it; the terminal app prints its `screen`.
///
/// Everything it does goes through injected seams (`DriverAPI`, `DriverChannel`, `LocationSource`,
/// `OutboxStore`, `Timeline`), so tests run it on a manual clock against fakes or the real server.
@MainActor
@Observable
public final class DriverModel {
    /// True while the driver takes trips.
    public private(set) var isOnline = false
    /// Which link carries positions.
    public private(set) var link: DriverLink = .down
    /// The open offer, until accepted, declined or lapsed.
    public private(set) var offer: TripOffer?
    /// The trip as the server last confirmed it; a finished trip stays until the next one.
    public private(set) var trip: Trip?
    /// Trip actions waiting for the server, and refusals waiting to be shown.
    public private(set) var outbox: Outbox
    /// The phone's thermal state.
    public private(set) var thermal: ThermalState = .nominal
    /// True in Low Power Mode.
    public private(set) var lowPower = false
    /// Filter, batcher and what has been sent.
    public private(set) var pipeline: DriverLocationPipeline
    /// The policy the location source last confirmed applying.
    public private(set) var sourcePolicy: LocationPolicy?
    /// The degraded flag the server last acknowledged, nil before the first status report.
    public private(set) var reportedDegraded: Bool?
    /// The state most recently written to the store: what a kill right now would leave behind.
    public private(set) var lastSaved: DriverSavedState?
    /// The last failure nobody else reports (status, storage), for logs.
    public private(set) var lastProblem: String?
    /// The flags of this driver's cohort (`GET /v1/config`), fetched at start and after every reconnect: the
    /// location cap `policy` is held to. The defaults (no cap) until the server says, and from one without flags.
    public private(set) var config = ClientConfig.defaults(for: .driver)

    @ObservationIgnored private let api: any DriverAPI
    @ObservationIgnored private let channel: any DriverChannel
    @ObservationIgnored private let location: any LocationSource
    @ObservationIgnored private let store: any OutboxStore
    @ObservationIgnored private let timeline: Timeline
    @ObservationIgnored private var generator: any RandomNumberGenerator
    @ObservationIgnored private let reconnect: Backoff
    @ObservationIgnored private let ackTimeout: TimeInterval
    @ObservationIgnored private var locationTask: Task<Void, Never>?
    @ObservationIgnored private var fixStatusTask: Task<Void, Never>?
    @ObservationIgnored private var channelTask: Task<Void, Never>?
    @ObservationIgnored private var wakeTask: Task<Void, Never>?
    @ObservationIgnored private var outboxTimer: Task<Void, Never>?
    @ObservationIgnored private var offerTimer: Task<Void, Never>?
    @ObservationIgnored private var sendQueue: [(batch: LocationBatch, via: LocationBatcher.Transport)] = []
    @ObservationIgnored private var draining = false
    @ObservationIgnored private var outboxRunning = false
    @ObservationIgnored private var statusOwed = false
    /// Bumped whenever `link` changes: a send that fails after the link changed under it (a request that
    /// waited out its timeout while the stream came back) says nothing about the link now.
    @ObservationIgnored private var linkGeneration = 0
    @ObservationIgnored private var requestedPolicy: LocationPolicy?
    @ObservationIgnored private var policyTask: Task<Void, Never>?
    @ObservationIgnored private var bufferSavedAt: Date?
    @ObservationIgnored private let changeStream = ModelChanges<DriverScreen>()
    /// The telemetry samples waiting for the server, and what it accepted (with a `TelemetrySession`).
    @ObservationIgnored public private(set) var telemetry: TelemetryLog
    @ObservationIgnored private let telemetrySession: TelemetrySession?
    @ObservationIgnored private var telemetryTask: Task<Void, Never>?
    @ObservationIgnored private var battery: (level: Double?, state: BatteryState) = (nil, .unknown)

    /// Creates a model; call `start` to restore what was saved and carry on. A stream batch without an ack
    /// for `ackTimeout` seconds counts as a dead stream. With a `telemetry` session the model samples the
    /// phone's power and sends it (`POST /v1/telemetry`) from `start()` on.
    public init(
        api: any DriverAPI,
        channel: any DriverChannel,
        location: any LocationSource,
        store: any OutboxStore,
        timeline: Timeline,
        random: any RandomNumberGenerator = SystemRandomNumberGenerator(),
        backoff: Backoff = .standard,
        bufferCapacity: Int = 1000,
        ackTimeout: TimeInterval = 10,
        telemetry: TelemetrySession? = nil
    ) {
        self.telemetrySession = telemetry
        self.telemetry = TelemetryLog(configuration: telemetry?.log ?? TelemetryLog.Configuration())
        self.api = api
        self.channel = channel
        self.location = location
        self.store = store
        self.timeline = timeline
        self.generator = random
        self.reconnect = backoff
        self.ackTimeout = ackTimeout
        self.outbox = Outbox(backoff: backoff)
        self.pipeline = DriverLocationPipeline(policy: .off, bufferCapacity: bufferCapacity)
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
        DriverScreen(
            title: title, online: isOnline, link: link.rawValue, offerTripID: offer?.trip.id,
            offerExpiresAt: offer?.expiresAt, tripID: trip?.id, tripState: trip?.state,
            pending: pendingAction?.kind, fare: trip?.fare, rejection: outbox.rejections.first?.reason,
            degraded: policy.degraded)
    }

    private var title: String {
        if let pending = pendingAction {
            switch pending.kind {
            case .accept: return "Accepting trip…"
            case .arrived: return "Arriving…"
            case .started: return "Starting trip…"
            case .ended: return "Ending trip…"
            case .cancel: return "Cancelling trip…"
            }
        }
        if offer != nil { return "New trip offer" }
        switch trip?.state {
        case .driverAssigned?: return "Driving to pickup"
        case .driverArrived?: return "At pickup"
        case .onTrip?: return "On trip"
        case .completed?: return "Trip completed"
        case .cancelled?: return "Trip cancelled"
        default: return isOnline ? "Waiting for trips" : "Offline"
        }
    }

    // MARK: Driver actions

    /// Restores after a launch or a kill: the saved outbox and points, the server's active trip, the
    /// online state, then replays the outbox.
    public func start() async {
        var wasOnline = false
        do {
            if let saved = try await store.load() {
                outbox = saved.outbox
                pipeline = DriverLocationPipeline(
                    policy: .off, snapshot: saved.batcher, bufferCapacity: pipeline.batcher.configuration.bufferCapacity
                )
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
            kickOutbox()
        }
        startTelemetryIfNeeded()
    }

    /// Goes online: status to the server, location on, the stream opened.
    public func goOnline() async {
        isOnline = true
        await persist()
        changed()
        await sendStatus()
        refreshPolicy()
        if locationTask == nil {
            let fixes = location.fixes()
            locationTask = Task { [weak self] in
                for await point in fixes {
                    guard let self else { return }
                    self.receive(point)
                }
            }
        }
        if fixStatusTask == nil {
            let statuses = location.fixStatus()
            fixStatusTask = Task { [weak self] in
                for await status in statuses {
                    guard let self else { return }
                    self.perform(self.pipeline.fixStatusChanged(status, now: self.timeline.now()))
                }
            }
        }
        if channelTask == nil { channelTask = Task { [weak self] in await self?.runChannel() } }
        kickOutbox()
    }

    /// Goes offline: no offers, location off, the stream closed. Unsent actions stay in the outbox. Not
    /// during a trip: the rider is watching the car, so the trip must end or be cancelled first.
    public func goOffline() async {
        guard !(trip?.state.isActive ?? false) else { return }
        isOnline = false
        offer = nil
        refreshPolicy()
        channelTask?.cancel()
        channelTask = nil
        await channel.disconnect()
        pipeline.linkDown()
        setLink(.down)
        await persist()
        changed()
        await sendStatus()
    }

    /// Accepts the open offer through the outbox.
    public func accept() async {
        guard let offer else { return }
        self.offer = nil
        await enqueue(DriverIntent(.accept, tripID: offer.trip.id))
    }

    /// Turns down the open offer, so the next driver is asked at once; best effort.
    public func decline() async {
        guard let offer else { return }
        self.offer = nil
        changed()
        try? await api.decline(tripID: offer.trip.id)
    }

    /// Taps arrived, started, ended or cancel on the current trip; the screen shows it at once.
    public func tap(_ kind: DriverIntent.Kind) async {
        guard let trip, kind != .accept else { return }
        // The rider at the pickup sees the car where it stopped, not where the last interval left it.
        if kind == .arrived { await sendFreshFix() }
        // Positions still waiting go now: the fare is built from the path driven before "ended" lands.
        perform(pipeline.tripStateChanged(now: timeline.now()))
        await enqueue(DriverIntent(kind, tripID: trip.id))
    }

    /// The screen has shown the oldest refusal.
    public func dismissRejection() async {
        guard let first = outbox.rejections.first else { return }
        outbox.dismissRejection(key: first.key)
        await persist()
        changed()
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
        outbox.connectivityRestored(now: timeline.now())
        kickOutbox()
    }

    /// Stops every task, as a killed app would; what was saved stays saved.
    public func shutdown() async {
        for task in [locationTask, fixStatusTask, channelTask, wakeTask, outboxTimer, offerTimer, telemetryTask] {
            task?.cancel()
        }
        locationTask = nil
        fixStatusTask = nil
        channelTask = nil
        await channel.disconnect()
        changeStream.finish()
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
        await changeStream.firstStep { [unowned self] in condition(self) }
    }

    // MARK: Location

    private func receive(_ point: LocationPoint) {
        let now = timeline.now()
        perform(pipeline.fix(point, now: now))
        // Online, every send saves the snapshot; in a tunnel nothing is sent, so the buffer is saved on its
        // own, at most every `bufferSaveInterval`, and a kill there loses at most that much of the path.
        if !pipeline.isConnected, now.timeIntervalSince(bufferSavedAt ?? .distantPast) >= Self.bufferSaveInterval {
            bufferSavedAt = now
            Task { await persist() }
        }
    }

    /// Sends the source's fix of this instant at once, with whatever waits; false when it has none (or the
    /// filter refused it).
    @discardableResult
    private func sendFreshFix() async -> Bool {
        guard let point = await location.currentFix() else { return false }
        let before = pipeline.stats.freshFixes
        perform(pipeline.freshFix(point, now: timeline.now()))
        return pipeline.stats.freshFixes > before
    }

    /// Device seconds between saves of the offline buffer.
    static let bufferSaveInterval: TimeInterval = 5

    private func refreshPolicy() {
        let watching = activity == .toPickup || activity == .onTrip
        if pipeline.riderWatching != watching {
            perform(pipeline.riderWatchingChanged(watching, now: timeline.now()))
        }
        let policy = self.policy
        if requestedPolicy != policy {
            requestedPolicy = policy
            perform(pipeline.setPolicy(policy, now: timeline.now()))
            let source = location
            let previous = policyTask
            // Chained, so two quick changes reach the hardware in the order they were made.
            policyTask = Task { [weak self] in
                await previous?.value
                await source.apply(policy)
                self?.sourcePolicy = policy
                self?.changed()
            }
        }
        if isOnline, reportedDegraded != policy.degraded {
            Task { await self.sendStatus() }
        }
        changed()
    }

    private func perform(_ actions: [DriverLocationPipeline.Action]) {
        for action in actions {
            switch action {
            case .send(let batch, let via):
                sendQueue.append((batch, via))
            case .wake(let date):
                wakeTask?.cancel()
                let timeline = self.timeline
                wakeTask = Task { [weak self] in
                    do { try await timeline.sleep(until: date) } catch { return }
                    guard let self else { return }
                    self.perform(self.pipeline.tick(now: timeline.now()))
                }
            }
        }
        if !sendQueue.isEmpty { drain() }
        changed()
    }

    /// Sends queued batches one at a time, in seq order: the server ignores a batch older than one it has.
    private func drain() {
        guard !draining else { return }
        draining = true
        Task {
            // No suspension between the last emptiness check and clearing the flag, or a batch queued in
            // between would wait for the next one.
            while let (batch, via) = sendQueue.first {
                sendQueue.removeFirst()
                // A batch re-buffered by a link loss since it was queued goes out again under a new seq.
                guard pipeline.batcher.inFlight.contains(where: { $0.seq == batch.seq }) else { continue }
                let generation = linkGeneration
                await persist()
                // The link changed while saving: the batch was re-buffered and goes out again on the new one.
                guard generation == linkGeneration else { continue }
                switch via {
                case .stream:
                    do {
                        try await channel.send(batch)
                        watchForAck(batch.seq)
                    } catch {
                        guard generation == linkGeneration else { continue }
                        streamLost()
                        // The socket may still look open to the reader (a send can fail first): closed, it
                        // ends the frames, so the reconnect loop takes over instead of waiting on it.
                        await channel.disconnect()
                    }
                case .http:
                    do {
                        let ack = try await api.sendLocations(batch)
                        pipeline.ack(ack.seq)
                        connectivityBack()
                        changed()
                    } catch let failure as CallError where failure.isRejection {
                        // A refused batch can never succeed; retiring it keeps the rest flowing.
                        pipeline.ack(batch.seq)
                        lastProblem = "location batch \(batch.seq) refused: \(failure.message)"
                    } catch {
                        // A request that timed out after the stream came back must not take the stream
                        // down: nothing would bring it up again until the socket broke by itself.
                        guard generation == linkGeneration else { continue }
                        pipeline.linkDown()
                        setLink(.down)
                        changed()
                    }
                }
            }
            draining = false
        }
    }

    /// A socket can die without closing (a NAT forgets it, the radio parks): batches would queue behind it
    /// unacknowledged forever. No ack within `ackTimeout` counts as down; the reconnect loop takes over.
    private func watchForAck(_ seq: Int64) {
        let timeline = self.timeline
        let deadline = timeline.now().addingTimeInterval(ackTimeout)
        Task { [weak self] in
            do { try await timeline.sleep(until: deadline) } catch { return }
            guard let self, self.link == .stream,
                self.pipeline.batcher.inFlight.contains(where: { $0.seq == seq })
            else { return }
            self.lastProblem = "no ack for batch \(seq) within \(Int(self.ackTimeout)) s: the stream is silent"
            await self.channel.disconnect()
        }
    }

    // MARK: Stream

    private func runChannel() async {
        var attempt = 0
        var connectedBefore = false
        while !Task.isCancelled {
            do {
                let frames = try await channel.connect()
                attempt = 0
                // A reconnect may be to a server that restarted and forgot who is online (it keeps that in
                // memory): without a fresh status this driver would get no offers until it toggled.
                let reconnected = connectedBefore
                if reconnected, isOnline { statusOwed = true }
                connectedBefore = true
                linkUp(.stream)
                if reconnected, activity == .waitingForTrip {
                    perform(pipeline.waitingDriverReconnected(now: timeline.now()))
                }
                // The stream replays only an active trip, and a change is published once, to whoever is
                // connected: a trip that ended while this socket was down is learned from the server. Beside
                // the frames, not before them: acks must not wait on a slow request. The cohort's flags too: a
                // change reaches a running app within one reconnect.
                Task {
                    await self.refreshConfig()
                    await self.refreshTrip()
                }
                for await frame in frames { handle(frame) }
            } catch {}
            if Task.isCancelled { return }
            streamLost()
            attempt += 1
            let delay = reconnect.delay(afterAttempt: attempt, using: &generator)
            do { try await timeline.sleep(until: timeline.now().addingTimeInterval(delay)) } catch { return }
        }
    }

    private func linkUp(_ transport: LocationBatcher.Transport) {
        if link != .down { pipeline.linkDown() }
        setLink(transport == .stream ? .stream : .http)
        perform(pipeline.linkUp(transport, now: timeline.now()))
        connectivityBack()
        changed()
    }

    /// The stream is gone: HTTP carries positions until it fails too.
    private func streamLost() {
        guard link != .http else { return }
        pipeline.linkDown()
        setLink(.down)
        guard isOnline else { return }
        linkUp(.http)
    }

    private func setLink(_ new: DriverLink) {
        link = new
        linkGeneration += 1
    }

    private func connectivityBack() {
        if statusOwed { Task { await self.sendStatus() } }
        outbox.connectivityRestored(now: timeline.now())
        kickOutbox()
    }

    private func handle(_ frame: DriverServerFrame) {
        switch frame {
        case .hello:
            break
        case .offer(let offer):
            if trip?.state.isActive ?? false {
                // The server offers trips only to drivers it believes free: the trip shown may have ended
                // without word reaching us. Ask, then show the offer if the trip is over.
                Task {
                    await self.refreshTrip()
                    self.show(offer)
                }
            } else {
                show(offer)
            }
        case .tripUpdated(let trip):
            apply(trip)
        case .ack(let ack):
            pipeline.ack(ack.seq)
            changed()
        }
    }

    private func show(_ offer: TripOffer) {
        guard !(trip?.state.isActive ?? false), outbox.entries.allSatisfy({ $0.intent.kind != .accept }) else {
            return
        }
        self.offer = offer
        offerTimer?.cancel()
        let timeline = self.timeline
        offerTimer = Task { [weak self] in
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
        let stateChanged = trip?.id != update.id || trip?.state != update.state
        trip = update
        if offer?.trip.id == update.id { offer = nil }
        let accepted = stateChanged && update.state == .driverAssigned
        if stateChanged, !accepted { perform(pipeline.tripStateChanged(now: timeline.now())) }
        refreshPolicy()
        // Accepted: the rider's first pin is where the car is now, not the waiting driver's last fix. What the
        // waiting pace held goes with the fix of this moment, in one batch whose newest it is, so the rider is
        // never shown the held one (up to 50 m behind a car that stood after moving less than the filter).
        if accepted {
            Task {
                if await !self.sendFreshFix() { self.perform(self.pipeline.tripStateChanged(now: self.timeline.now())) }
            }
        }
        Task { await persist() }
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
            if wasActive, activity == .waitingForTrip {
                perform(pipeline.waitingDriverReconnected(now: timeline.now()))
            }
        } catch let failure as CallError where failure.isRejection {
            // No longer ours to read (the driver's own cancel put it back to searching): nothing to show. Kept
            // while actions wait: their answers say more.
            guard let current = trip, current.id == tripID, current.state.isActive, outbox.entries.isEmpty else {
                return
            }
            trip = nil
            perform(pipeline.tripStateChanged(now: timeline.now()))
            refreshPolicy()
            await persist()
        } catch {
            lastProblem = "cannot read trip \(tripID): \(error)"
        }
    }

    private func enqueue(_ intent: DriverIntent) async {
        outbox.enqueue(intent, key: UUID(), now: timeline.now())
        // On disk before the first attempt: a kill between tap and send must not lose the tap.
        await persist()
        changed()
        kickOutbox()
    }

    private func kickOutbox() {
        guard !outboxRunning else { return }
        outboxRunning = true
        Task { await runOutbox() }
    }

    private func runOutbox() async {
        while true {
            switch outbox.next(now: timeline.now()) {
            case .idle, .awaitingResult:
                outboxRunning = false
                return
            case .wait(let until):
                outboxTimer?.cancel()
                let timeline = self.timeline
                outboxTimer = Task { [weak self] in
                    do { try await timeline.sleep(until: until) } catch { return }
                    self?.kickOutbox()
                }
                outboxRunning = false
                return
            case .send(let entry):
                do {
                    let confirmed = try await send(entry)
                    outbox.succeeded(key: entry.key)
                    apply(confirmed)
                } catch let failure as CallError where failure.isRejection {
                    outbox.rejected(key: entry.key, reason: failure.message)
                    await refreshTrip()
                } catch {
                    let transient = error.asCallError.code == .noAnswer
                    outbox.failed(key: entry.key, now: timeline.now(), transient: transient, using: &generator)
                }
                await persist()
                changed()
            }
        }
    }

    private func send(_ entry: Outbox.Entry) async throws -> Trip {
        let tripID = entry.intent.tripID
        switch entry.intent.kind {
        case .accept: return try await api.accept(tripID: tripID, key: entry.key)
        case .arrived: return try await api.report(.arrived, tripID: tripID, key: entry.key)
        case .started: return try await api.report(.started, tripID: tripID, key: entry.key)
        case .ended:
            await locationsAcknowledged()
            return try await api.report(.ended, tripID: tripID, key: entry.key)
        case .cancel: return try await api.cancel(tripID: tripID, key: entry.key)
        }
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
        guard let session = telemetrySession, telemetryTask == nil else { return }
        let timeline = self.timeline
        telemetryTask = Task { [weak self] in
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

    /// Waits until the server has acknowledged the location batches in flight now, or the link is down, for at
    /// most `Self.locationsBeforeEndWait`: the fare is priced on the history the server holds when "ended" lands,
    /// and the batch the tap sent travels on the socket while "ended" goes over HTTP (the last seconds of a trip,
    /// 20 to 90 m, went uncharged when it lost the race).
    private func locationsAcknowledged() async {
        let sent = Set(pipeline.batcher.inFlight.map(\.seq))
        guard pipeline.isConnected, !sent.isEmpty else { return }
        let deadline = timeline.now().addingTimeInterval(Self.locationsBeforeEndWait)
        let timeline = self.timeline
        let timer = Task { [weak self] in
            try? await timeline.sleep(until: deadline)
            self?.changed()
        }
        defer { timer.cancel() }
        await changeStream.firstStep { [unowned self] in
            !pipeline.isConnected || timeline.now() >= deadline
                || !pipeline.batcher.inFlight.contains { sent.contains($0.seq) }
        }
    }

    /// Device seconds "ended" waits at most for the location batches before it.
    static let locationsBeforeEndWait: TimeInterval = 5

    // MARK: Plumbing

    private func sendStatus() async {
        let degraded = policy.degraded
        do {
            try await api.setStatus(DriverStatusRequest(online: isOnline, degraded: degraded))
            reportedDegraded = degraded
            statusOwed = false
            changed()
        } catch {
            statusOwed = true
            lastProblem = "cannot report the status: \(error)"
        }
    }

    private func persist() async {
        let state = DriverSavedState(
            outbox: outbox, batcher: pipeline.batcher.snapshot, trip: trip, online: isOnline)
        do {
            try await store.save(state)
            lastSaved = state
            changed()
        } catch {
            lastProblem = "cannot save: \(error)"
        }
    }

    private func changed() {
        changeStream.stepTaken(screen)
    }
}
