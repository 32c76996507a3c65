import Foundation
import HailCore
import HailProtocol
import HailTime
import Observation

/// The rider app's runtime: a SwiftUI trip screen binds to it and gets every decision of the design.
///
/// The pure decisions live in HailCore (`TripStateMachine`, `PositionTracker`, `Glide`, `PinFreshness`,
/// `ServerClock`, `EtaSmoother`, `Backoff`, `RetrySchedule`); this type carries them out over the injected
/// seams, on the injected clock, and publishes the result as `screen`.
///
/// Lifecycle: call `launch()` when the app starts and `screenVisibilityChanged(_:)` as the trip screen
/// appears and disappears (or the app goes to the background). The live stream runs only while a trip is
/// active and the screen is visible.
@Observable
@MainActor
public final class RiderModel {
    /// How the model currently hears about the trip.
    public enum Connection: String, Sendable, Hashable {
        /// No live loop: no active trip, or the screen is hidden.
        case idle
        /// Resyncing or opening the stream.
        case connecting
        /// The stream is open (its hello arrived).
        case streaming
        /// The stream cannot be had; the trip is polled until it can.
        case polling
        /// Waiting out a backoff before the next attempt.
        case waiting
    }

    /// The trip as last applied, or nil before any.
    public private(set) var trip: Trip?
    /// The products and prices of the last `loadEstimates` call.
    public private(set) var estimates: [Estimate] = []
    /// What the screen shows; refreshed on every change and by `refresh()`.
    public private(set) var screen = RiderScreen(phase: .idle)
    /// How the model hears about the trip right now.
    public private(set) var connection = Connection.idle
    /// True when the last attempt to reach the server got no answer and none has succeeded since.
    public private(set) var isOffline = false
    /// True while the trip screen is visible.
    public private(set) var isScreenVisible = false
    /// The newest driver position applied.
    public private(set) var driverLocation: DriverLocation?
    /// The stored cursor: the seq of the last position saved durably for the current trip.
    public private(set) var cursor: Int64?
    /// How many positions were dropped as older than (or the same as) the one shown.
    public private(set) var droppedPositions = 0
    /// How many trip updates were dropped as not newer than the one shown.
    public private(set) var staleTripUpdates = 0
    /// How many trip updates skipped states (missed events, accepted because the server is the truth).
    public private(set) var jumps = 0
    /// The flags of this rider's cohort (`GET /v1/config`), fetched at launch and on every resync: stream or poll,
    /// and where the shown ETA comes from. The defaults until the server says, and from a server without flags.
    public private(set) var config = ClientConfig.defaults(for: .rider)
    /// The safety alert of the trip under way (the car left its route, or stood for long), with the rider's answer
    /// once given; nil when there is none, and once the trip is no longer under way.
    public private(set) var alert: TripAlert?

    @ObservationIgnored private let api: any TripAPI
    @ObservationIgnored private let channel: any LiveTripChannel
    @ObservationIgnored private let cursors: any CursorStore
    /// The phone's time: its dates (wrong on some phones; the server's offset corrects them) and every wait.
    @ObservationIgnored private let timeline: Timeline
    @ObservationIgnored private let configuration: RiderConfiguration
    @ObservationIgnored private var random: AnyRandomNumberGenerator
    @ObservationIgnored private var machine = TripStateMachine()
    @ObservationIgnored private var tracker = PositionTracker()
    @ObservationIgnored private var glide: Glide
    @ObservationIgnored private var serverClock = ServerClock()
    @ObservationIgnored private var smoother: EtaSmoother
    /// The server's latest estimate of the arrival (server time): its ETA plus when it was computed.
    @ObservationIgnored private var latestArrival: Date?
    /// The trip and state (leg) the smoother's promise belongs to, and the promise last stored for it.
    @ObservationIgnored private var promiseLeg: (tripID: String, state: TripState, stored: Date?)?
    @ObservationIgnored private var promiseSave: Task<Void, Never>?
    /// Wakes when the smoother's promise moves by itself (a disagreement that lasted the hold), to store it.
    @ObservationIgnored private var promiseCheck: (due: Date, task: Task<Void, Never>)?
    @ObservationIgnored private var cursorTripID: String?
    @ObservationIgnored private var isRequesting = false
    @ObservationIgnored private var isCancelling = false
    @ObservationIgnored private var isCheckingIn = false
    @ObservationIgnored private var problem: RiderScreen.Problem?
    @ObservationIgnored private var liveTask: Task<Void, Never>?
    @ObservationIgnored private var liveGeneration = 0
    @ObservationIgnored private let changeStream = ModelChanges<RiderScreen>()
    @ObservationIgnored private var deviceRegistration: DeviceRegistration?
    @ObservationIgnored private var liveActivity: (tripID: String, registration: LiveActivityRegistration)?
    @ObservationIgnored private let telemetrySession: TelemetrySession?
    @ObservationIgnored private var telemetry: TelemetryLog
    @ObservationIgnored private var telemetryTask: Task<Void, Never>?
    @ObservationIgnored private var power = DevicePower.unknown
    /// True once a server answered the flags: from then on its poll interval is the one the fallback polls at.
    @ObservationIgnored private var flagsFromServer = false
    /// The stream's stall watch (`RiderConfiguration.stallSeconds`): the wait now, doubled after a reopening that
    /// brought nothing newer, and the newest position's seq when the stream was last reopened for a stall.
    @ObservationIgnored private var stallWait: TimeInterval = 0
    @ObservationIgnored private var seqAtStall: Int64?
    /// Phone time of the last frame on the open stream.
    @ObservationIgnored private var lastFrameAt = Date.distantPast

    /// Creates a model on its seams. `timeline` is the phone's time: its dates (tests make them wrong on purpose)
    /// and every wait (retries, backoff, polls); `random` draws the reconnect jitter; with a `telemetry`
    /// session the model samples the phone's power and sends it (`POST /v1/telemetry`) from `launch()` on.
    public init(
        api: any TripAPI, channel: any LiveTripChannel, cursors: any CursorStore, timeline: Timeline = .system(),
        configuration: RiderConfiguration = RiderConfiguration(),
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        telemetry: TelemetrySession? = nil
    ) {
        self.telemetrySession = telemetry
        self.telemetry = TelemetryLog(configuration: telemetry?.log ?? TelemetryLog.Configuration())
        self.api = api
        self.channel = channel
        self.cursors = cursors
        self.timeline = timeline
        self.configuration = configuration
        self.random = AnyRandomNumberGenerator(base: random)
        self.glide = Glide(configuration: configuration.glide)
        self.smoother = EtaSmoother(hold: configuration.etaHold)
    }

    // MARK: - What the view asks

    /// The server's clock minus the phone's, in seconds, from the stream's hello and REST answers (0 before any).
    public var serverClockOffset: TimeInterval { serverClock.offset }

    /// The 4-digit code to tell the driver at the pickup, until the trip starts; nil when the trip needs none (the
    /// rider asked for none and their cohort does not require one).
    public var pickupPIN: String? {
        guard let trip, [.searching, .driverAssigned, .driverArrived].contains(trip.state) else { return nil }
        return trip.pickupPIN
    }

    /// The server's clock now, by the phone's clock corrected with the measured offset.
    public var serverNow: Date { serverClock.serverNow(deviceNow: timeline.now()) }

    /// Where to draw the car at phone time `deviceTime` (a display link's timestamp), or nil with no fix.
    public func marker(at deviceTime: Date) -> Glide.Marker? {
        glide.marker(at: serverClock.serverNow(deviceNow: deviceTime))
    }

    /// The pin's freshness now: its level and the age of the last fix on the server's clock.
    public var pinFreshness: PinFreshness {
        PinFreshness(of: tracker.latest, serverNow: serverNow)
    }

    /// Recomputes `screen` at the phone's current time; call it once a second while the screen shows
    /// (ages grow without any event), the model calls it after every change. It only reads what the model knows:
    /// called any number of times at one instant, it shows the same screen, and how often it is called changes
    /// nothing the screen says.
    public func refresh() {
        let next = makeScreen(serverNow: serverNow)
        if next != screen { screen = next }
        changeStream.stepTaken(screen)
    }

    /// The screen after every step the model takes from now on, starting with the current one (unchanged screens
    /// included): for scripts, the simulated city and tests; a SwiftUI view observes the model instead.
    public func changes() -> AsyncStream<RiderScreen> {
        changeStream.stream(startingWith: screen)
    }

    // MARK: - What the rider does

    /// Loads the price and pickup time of each product between two points; an error is shown on screen.
    public func loadEstimates(pickup: Coordinate, dropoff: Coordinate) async {
        do {
            estimates = try await api.estimates(pickup: pickup, dropoff: dropoff)
            await reachedOverREST()
        } catch {
            show(error, failure: .pricesUnavailable)
        }
        stepTaken()
    }

    /// One "Request" tap: one idempotency key, reused on every retry (1 s, then 2 s), so one tap makes
    /// at most one trip. A second tap while this one is in flight, or with a trip active, does nothing.
    /// With `requirePickupPIN`, the driver must enter the trip's PIN (`pickupPIN`) to start it.
    public func requestRide(
        pickup: Coordinate, dropoff: Coordinate, product: ProductID, requirePickupPIN: Bool = false
    ) async {
        guard !isRequesting, !machine.isActive else { return }
        isRequesting = true
        problem = nil
        stepTaken()
        defer {
            isRequesting = false
            stepTaken()
        }
        let request = TripRequest(
            pickup: pickup, dropoff: dropoff, productID: product, requirePickupPIN: requirePickupPIN ? true : nil)
        let key = UUID()
        let answer = await withRetries(failure: .requestFailed) {
            try await self.api.requestTrip(request, idempotencyKey: key)
        }
        guard let trip = answer else {
            // The lost answers may hide a trip the server did make (or a 409 says one is already
            // active): ask before the rider taps again, since the next tap has a new key.
            let failure = problem
            if await resync(), machine.isActive {
                problem = nil
                startLiveLoopIfNeeded(synced: true)
            } else {
                problem = failure
            }
            return
        }
        await apply(trip)
        startLiveLoopIfNeeded(synced: true)
    }

    /// One "Cancel" tap, with the same retries and one key; refused on screen once the trip has started.
    public func cancel() async {
        guard let current = machine.trip, Self.cancellable(current.state), !isCancelling else { return }
        isCancelling = true
        problem = nil
        stepTaken()
        defer {
            isCancelling = false
            stepTaken()
        }
        let key = UUID()
        let answer = await withRetries(failure: .cancelFailed) {
            try await self.api.cancel(tripID: current.id, idempotencyKey: key)
        }
        if let trip = answer { await apply(trip) }
    }

    /// The rider's answer to the trip's alert ("I'm OK" or "get help"), with the same retries and one key; true once
    /// the server has it (``alert`` then carries the answer). Nothing to answer (no alert, the trip not under way),
    /// or a check-in already on its way, is false at once.
    @discardableResult
    public func checkIn(_ answer: CheckInAnswer) async -> Bool {
        guard let current = machine.trip, current.state == .onTrip, alert != nil, !isCheckingIn else { return false }
        isCheckingIn = true
        problem = nil
        defer {
            isCheckingIn = false
            stepTaken()
        }
        let key = UUID()
        let answered = await withRetries(failure: .checkInFailed) {
            try await self.api.checkIn(tripID: current.id, answer: answer, idempotencyKey: key)
        }
        guard let answered else { return false }
        await apply(answered)
        return true
    }

    /// At launch (and after a kill): asks the server for the active trip and rebuilds the screen from it,
    /// then starts the live loop if the trip screen is visible.
    public func launch() async {
        let synced = await resync()
        stepTaken()
        startLiveLoopIfNeeded(synced: synced)
        startTelemetryIfNeeded()
    }

    /// The trip screen appeared (or the app returned to the foreground) or went away. Visible: the live
    /// loop starts with a resync. Hidden: the stream closes, nothing runs in the background.
    public func screenVisibilityChanged(_ visible: Bool) {
        guard visible != isScreenVisible else { return }
        isScreenVisible = visible
        if visible {
            startLiveLoopIfNeeded()
        } else {
            stopLiveLoop()
            // The car was not watched while hidden; coming back must not animate across the gap.
            glide.reset()
        }
        stepTaken()
    }

    // MARK: - Push tokens

    /// iOS handed the app its APNs device token (`didRegisterForRemoteNotificationsWithDeviceToken`): it is
    /// registered now and again after every resync, since the server forgets a token APNs calls dead and a
    /// registration sent while offline is lost. `environment` is `sandbox` for development builds.
    public func deviceTokenReceived(_ token: Data, environment: PushEnvironment, bundleID: String? = nil) async {
        deviceRegistration = DeviceRegistration(
            token: PushTokenFormat.hex(token), environment: environment, bundleID: bundleID)
        await registerDevice()
    }

    /// The Live Activity the app started for `tripID` has a push token (`Activity.pushTokenUpdates`): it is
    /// registered now and again after every resync while the trip is active, and forgotten when it ends.
    public func liveActivityTokenReceived(_ token: Data, for tripID: String) async {
        liveActivity = (tripID, LiveActivityRegistration(token: PushTokenFormat.hex(token)))
        await registerLiveActivity()
    }

    private func registerDevice() async {
        guard let registration = deviceRegistration else { return }
        do {
            try await api.register(deviceToken: registration)
        } catch let refusal as CallError where refusal.isRejection {
            // Refused (a malformed token): sending the same one again cannot help.
            deviceRegistration = nil
        } catch {
            // No answer: the next resync sends it again.
        }
    }

    private func registerLiveActivity() async {
        guard let (tripID, registration) = liveActivity else { return }
        if let shown = machine.trip, shown.id == tripID, !shown.state.isActive {
            // The activity ended with its trip; the server would refuse the token (409).
            liveActivity = nil
            return
        }
        do {
            try await api.register(liveActivityToken: registration, for: tripID)
        } catch let refusal as CallError where refusal.isRejection {
            liveActivity = nil
        } catch {
            // No answer: the next resync sends it again.
        }
    }

    /// Stops all live work, for when the model is thrown away.
    public func stop() {
        stopLiveLoop()
        promiseCheck?.task.cancel()
        promiseCheck = nil
        // A promise not yet on its way is not written by a model thrown away (one already writing finishes).
        promiseSave?.cancel()
        promiseSave = nil
        telemetryTask?.cancel()
        telemetryTask = nil
        changeStream.finish()
    }

    // MARK: - Applying what the server says

    private func apply(_ update: Trip) async {
        let previousID = machine.trip?.id
        let outcome = machine.apply(update)
        await adopt(outcome, from: update, previousID: previousID)
        noteAlert(update.alert, of: update.id)
    }

    /// Keeps the newest alert of the trip under way: the rider's REST answers carry it with the answer, a stream's
    /// `tripAlert` frame without; an alert ends with the trip's ride.
    private func noteAlert(_ incoming: TripAlert?, of tripID: String) {
        guard let trip = machine.trip, trip.state == .onTrip else {
            alert = nil
            return
        }
        guard let incoming, tripID == trip.id else { return }
        // The same alert again without its answer (the stream's frame after the REST answer) keeps the answer.
        if let alert,
            alert.raisedAt > incoming.raisedAt || (alert.raisedAt == incoming.raisedAt && incoming.answer == nil)
        {
            return
        }
        alert = incoming
    }

    /// Takes the machine's verdict on `update`. The driver's position rides along separately: it is a
    /// live field the server fills in without bumping the version, so even a trip answer that is not
    /// newer (a poll, a resync) may carry a newer position, which its seq alone decides.
    private func adopt(_ outcome: TripStateMachine.Outcome, from update: Trip, previousID: String?) async {
        switch outcome {
        case .ignoredStale:
            staleTripUpdates += 1
        case .ignoredOtherTrip:
            stepTaken()
            return
        case .appliedWithJump:
            jumps += 1
        case .applied:
            break
        }
        guard let current = machine.trip else {
            trip = nil
            resetTracking()
            stepTaken()
            return
        }
        if current.id != previousID { resetTracking() }
        if trip != current {
            // A trip answer's ETA runs from the driver's position it carries (the server computes it from that),
            // else from now (a change just committed).
            let arrival = current.etaSeconds.map { etaArrival($0, from: current.driverLocation) }
            if current.state != trip?.state {
                // A new state means a new target (pickup, then dropoff): the old ETA says nothing about
                // it and must not be smoothed into the new one. What this leg promised before a kill does:
                // no minutes until it is read, so none are shown that it would take back.
                latestArrival = nil
                smoother = EtaSmoother(hold: configuration.etaHold)
                trip = current
                // `trip` and `screen` change together: a view (or a test) reading both while the store answers
                // sees one state, with no minutes yet.
                refresh()
                await restorePromise(tripID: current.id, state: current.state)
                if latestArrival == nil, machine.trip?.id == current.id, machine.trip?.state == current.state {
                    latestArrival = arrival
                }
            } else if let arrival {
                latestArrival = arrival
            }
            trip = machine.trip
            stepTaken()
        }
        if update.id == current.id, current.state.isActive, let location = update.driverLocation {
            await applyPosition(
                location, etaSeconds: update.etaSeconds, etaTarget: EtaTarget(for: update.state), path: nil,
                tripID: current.id)
        }
        stepTaken()
    }

    /// When an ETA of `seconds` from `position` (nil: from now) has the car arrive, server time. The server
    /// computes it from where the car was when the fix was taken; a position stamped later than this phone's
    /// estimate of the server's clock (an offset error) counts from now.
    private func etaArrival(_ seconds: Int, from position: DriverLocation?) -> Date {
        let now = serverNow
        let from = position.map { min($0.ageOrigin, now) } ?? now
        return from.addingTimeInterval(TimeInterval(seconds))
    }

    /// Takes the promise an earlier instance of the app stored for this leg of the trip (a relaunch).
    private func restorePromise(tripID: String, state: TripState) async {
        guard state == .driverAssigned || state == .onTrip else {
            promiseLeg = nil
            return
        }
        let stored = try? await cursors.loadPromise(tripID: tripID, state: state)
        // The trip moved on while the store answered: a newer leg has its own smoother.
        guard machine.trip?.id == tripID, machine.trip?.state == state else { return }
        promiseLeg = (tripID, state, stored ?? nil)
        if let stored = stored ?? nil { smoother.restore(stored) }
    }

    /// Stores the smoother's promise when it moved, so a relaunched app shows the same minutes.
    private func storePromiseIfMoved(at now: Date) {
        guard let leg = promiseLeg, let promise = smoother.promise(at: now), promise != leg.stored,
            machine.trip?.id == leg.tripID, machine.trip?.state == leg.state
        else { return }
        promiseLeg?.stored = promise
        let cursors = self.cursors
        let previous = promiseSave
        // Chained, so the last promise is the one that stays.
        promiseSave = Task {
            await previous?.value
            guard !Task.isCancelled else { return }
            try? await cursors.savePromise(promise, tripID: leg.tripID, state: leg.state)
        }
    }

    /// `etaSeconds` runs from `location` to `etaTarget` (nil: a server that does not say).
    private func applyPosition(
        _ location: DriverLocation, etaSeconds: Int?, etaTarget: EtaTarget?, path: [Coordinate]?, tripID: String
    ) async {
        guard tripID == machine.trip?.id else { return }
        if let latest = tracker.latestSeq, location.seq <= latest {
            tracker.apply(location)
            droppedPositions = tracker.dropped
            stepTaken()
            return
        }
        if cursorTripID != tripID {
            cursorTripID = tripID
            cursor = try? await cursors.load(tripID: tripID)
        }
        if location.seq > (cursor ?? Int64.min) {
            // Durable first, then the cursor moves: a kill in between resumes from what was stored.
            if (try? await cursors.save(location.seq, tripID: tripID)) != nil, cursorTripID == tripID {
                cursor = location.seq
            }
        }
        // The save suspended: a newer position (or another trip) may have been applied meanwhile.
        guard tripID == machine.trip?.id, tracker.apply(location) else {
            droppedPositions = tracker.dropped
            stepTaken()
            return
        }
        glide.add(location, roadPath: path, now: serverNow)
        driverLocation = location
        // An ETA to the leg before (a frame that crossed the start of the trip) says nothing of this one.
        if let etaSeconds, let state = machine.trip?.state, etaTarget == nil || etaTarget == EtaTarget(for: state) {
            latestArrival = etaArrival(etaSeconds, from: location)
        }
        stepTaken()
    }

    private func resetTracking() {
        tracker = PositionTracker()
        glide.reset()
        smoother = EtaSmoother(hold: configuration.etaHold)
        latestArrival = nil
        promiseLeg = nil
        driverLocation = nil
        droppedPositions = 0
        cursor = nil
        cursorTripID = nil
    }

    /// Asks for the flags, then the active trip; when the server has none but we were showing one, reads that trip
    /// so a ride that ended while the app was away shows its end (and fare), not an empty screen.
    @discardableResult
    private func resync() async -> Bool {
        await refreshConfig()
        do {
            let active = try await api.activeTrip()
            await reachedOverREST()
            if let active {
                let previousID = machine.trip?.id
                let outcome = machine.replace(with: active)
                await adopt(outcome, from: active, previousID: previousID)
            } else if let shown = machine.trip, shown.state.isActive {
                await apply(try await api.trip(id: shown.id))
            }
            await registerDevice()
            await registerLiveActivity()
            return true
        } catch {
            show(error, failure: nil)
            return false
        }
    }

    /// Fetches the cohort's flags; a server without the route means the defaults, no answer keeps what we had.
    private func refreshConfig() async {
        do {
            let answer = try await api.config()
            flagsFromServer = answer != nil
            let fresh = answer ?? ClientConfig.defaults(for: .rider)
            if fresh != config { config = fresh }
        } catch {
            // No answer (or a refusal): the flags in hand stay until the next resync.
        }
    }

    private func poll(tripID: String) async {
        do {
            let trip = try await api.trip(id: tripID)
            await reachedOverREST()
            await apply(trip)
        } catch {
            show(error, failure: nil)
            stepTaken()
        }
    }

    // MARK: - The live loop

    /// `synced`: the trip was just read from the server, so the first resync can be skipped.
    private func startLiveLoopIfNeeded(synced: Bool = false) {
        guard isScreenVisible, machine.isActive, liveTask == nil else { return }
        liveGeneration += 1
        let generation = liveGeneration
        liveTask = Task { [weak self] in
            await self?.runLive(generation: generation, synced: synced)
        }
    }

    private func stopLiveLoop() {
        liveGeneration += 1
        liveTask?.cancel()
        liveTask = nil
        connection = .idle
    }

    private func isCurrent(_ generation: Int) -> Bool {
        generation == liveGeneration && !Task.isCancelled && isScreenVisible
    }

    private func runLive(generation: Int, synced alreadySynced: Bool) async {
        var failures = 0
        var skipResync = alreadySynced
        var skipStreamResync = false
        stallWait = configuration.stallSeconds
        seqAtStall = nil
        defer {
            if generation == liveGeneration {
                liveTask = nil
                connection = .idle
            }
        }
        while isCurrent(generation) {
            connection = .connecting
            // Resync first: the stream only says what changes from now on. A trip read just now still fetches the
            // flags: the rider's cohort may depend on the pickup (its region).
            let synced: Bool
            if skipStreamResync {
                skipStreamResync = false
                synced = true
            } else if skipResync {
                await refreshConfig()
                synced = true
            } else {
                synced = await resync()
            }
            skipResync = false
            guard isCurrent(generation) else { return }
            if synced {
                guard let trip = machine.trip, trip.state.isActive else { return }
                if config.liveStreamOrDefault.mode == .poll {
                    // The cohort's flag says poll: no stream at all until it says stream again.
                    guard await pollByFlag(tripID: trip.id, generation: generation) else { return }
                    failures = 0
                    continue
                }
                let (streamed, reconnect, atOnce, stalled) = await stream(tripID: trip.id, generation: generation)
                guard isCurrent(generation), machine.isActive else { return }
                if stalled {
                    // The connection is up but holds its frames back: a new one, from the cursor, at once, with
                    // no resync (the stream sends the trip if its version moved, and the positions after it).
                    failures = 0
                    skipStreamResync = true
                    continue
                }
                if !reconnect {
                    // The server closed with a code that says reconnecting cannot help (the trip is not found, the
                    // token is refused, another stream took over): the trip as the server has it, then no stream.
                    _ = await resync()
                    return
                }
                if atOnce {
                    // A draining node asked for a move (4012): no failure, only a jitter, then resync and reconnect,
                    // which the balancer sends to another node.
                    failures = 0
                    guard await waitToMove(generation: generation) else { return }
                    continue
                }
                failures = streamed ? 1 : failures + 1
            } else {
                failures += 1
            }
            guard await waitBeforeRetry(failures: failures, generation: generation) else { return }
        }
    }

    /// Polls the trip at the flag's interval while the cohort's flags say poll, fetching the flags with each poll,
    /// so a flag turned back to stream reaches the app within one poll. False when the loop should end; true when
    /// the flags say stream again.
    private func pollByFlag(tripID: String, generation: Int) async -> Bool {
        connection = .polling
        stepTaken()
        while config.liveStreamOrDefault.mode == .poll {
            let interval = Int64(config.liveStreamOrDefault.pollIntervalSeconds)
            do { try await timeline.sleep(for: .seconds(interval)) } catch { return false }
            guard isCurrent(generation), machine.isActive else { return false }
            await refreshConfig()
            await poll(tripID: tripID)
            guard isCurrent(generation), machine.isActive else { return false }
        }
        return true
    }

    /// Runs one connection; `greeted` when its hello arrived (the stream worked, then dropped), `reconnect` false
    /// when the server closed it with a code `WebSocketCloseCode.shouldReconnect` refuses (storage trouble is 4013,
    /// reconnected), `atOnce` when its code asks for a reconnect at once (`reconnectsAtOnce`: a draining node),
    /// `stalled` when it was given up for holding its frames back (`RiderConfiguration.stallSeconds`).
    private func stream(tripID: String, generation: Int) async -> (
        greeted: Bool, reconnect: Bool, atOnce: Bool, stalled: Bool
    ) {
        if cursorTripID != tripID {
            cursorTripID = tripID
            cursor = try? await cursors.load(tripID: tripID)
        }
        let openedAt = timeline.now()
        lastFrameAt = openedAt
        let reading = Task { await read(tripID: tripID, generation: generation, openedAt: openedAt) }
        let watch = stallWait > 0 ? Task { await watchForStall(reading) } : nil
        let (greeted, reconnect, atOnce) = await withTaskCancellationHandler {
            await reading.value
        } onCancel: {
            reading.cancel()
        }
        watch?.cancel()
        let gaveUp = stallDetected
        stallDetected = false
        if gaveUp { return (greeted, true, false, true) }
        return (greeted, reconnect, atOnce, false)
    }

    /// Set by the stall watch when it gave the stream up.
    @ObservationIgnored private var stallDetected = false

    /// Gives the stream read by `reading` up once it has gone `stallWait` without a frame while the car is on its
    /// way, so the loop reopens it on a new connection.
    private func watchForStall(_ reading: Task<(Bool, Bool, Bool), Never>) async {
        while !Task.isCancelled {
            let due = lastFrameAt.addingTimeInterval(stallWait)
            do { try await timeline.sleep(until: due) } catch { return }
            guard timeline.now() >= lastFrameAt.addingTimeInterval(stallWait) else { continue }
            guard let state = machine.trip?.state, state == .driverAssigned || state == .onTrip else {
                lastFrameAt = timeline.now()
                continue
            }
            // A reopening that brought no newer position: the car had nothing to say; wait longer next time.
            if let seqAtStall, tracker.latestSeq ?? .min <= seqAtStall {
                stallWait = min(stallWait * 2, 60)
            } else {
                stallWait = configuration.stallSeconds
            }
            seqAtStall = tracker.latestSeq ?? .min
            stallDetected = true
            reading.cancel()
            return
        }
    }

    /// Reads one connection's frames; see `stream`.
    private func read(tripID: String, generation: Int, openedAt: Date) async -> (Bool, Bool, Bool) {
        var greeted = false
        do {
            let frames = try await channel.open(tripID: tripID, after: cursor, version: machine.trip?.version)
            lastFrameAt = timeline.now()
            for try await frame in frames {
                guard isCurrent(generation) else { return (greeted, true, false) }
                lastFrameAt = timeline.now()
                switch frame {
                case .hello(let serverTime):
                    serverClock.add(
                        ServerClock.Sample(sentAt: openedAt, serverTime: serverTime, receivedAt: timeline.now()))
                    greeted = true
                    connection = .streaming
                    markReached()
                    stepTaken()
                case .tripUpdated(let trip):
                    await apply(trip)
                case .driverMoved(let moved):
                    await applyPosition(
                        moved.location, etaSeconds: moved.etaSeconds, etaTarget: moved.etaTarget,
                        path: try? moved.pathCoordinates(), tripID: tripID)
                case .tripAlert(let raised):
                    noteAlert(raised, of: tripID)
                    stepTaken()
                }
                if !machine.isActive { return (greeted, true, false) }
            }
        } catch let error as CallError {
            // A close the server says not to retry ends the loop; a drop or a refused upgrade is retried.
            if let code = error.closeCode.map(WebSocketCloseCode.init(rawValue:)) {
                if !code.shouldReconnect { return (greeted, false, false) }
                if code.reconnectsAtOnce { return (greeted, true, true) }
            }
        } catch {
            // A drop or a refused upgrade: the loop resyncs and reconnects after its backoff.
        }
        return (greeted, true, false)
    }

    /// Waits out the jitter before a move a draining node asked for (`RiderConfiguration.move`); false when the
    /// loop should end.
    private func waitToMove(generation: Int) async -> Bool {
        let delay = configuration.move.delay(afterAttempt: 1, using: &random)
        connection = .waiting
        stepTaken()
        do { try await timeline.sleep(for: .milliseconds(Int64((delay * 1000).rounded()))) } catch { return false }
        return isCurrent(generation) && machine.isActive
    }

    /// Waits out the backoff after `failures` failed attempts; once the stream has failed often enough
    /// the wait is filled with polls. False when the loop should end.
    private func waitBeforeRetry(failures: Int, generation: Int) async -> Bool {
        var remaining = configuration.reconnect.delay(afterAttempt: failures, using: &random)
        let polling = failures >= configuration.pollAfterFailures
        // The cohort's interval when the server gave one; the app's own before it did.
        let pollInterval =
            flagsFromServer ? TimeInterval(config.liveStreamOrDefault.pollIntervalSeconds) : configuration.pollInterval
        connection = polling ? .polling : .waiting
        stepTaken()
        repeat {
            let step = polling ? min(remaining, pollInterval) : remaining
            do { try await timeline.sleep(for: .milliseconds(Int64((step * 1000).rounded()))) } catch { return false }
            remaining -= step
            guard isCurrent(generation), machine.isActive else { return false }
            if polling, remaining > 0, let id = machine.trip?.id {
                await poll(tripID: id)
                guard isCurrent(generation), machine.isActive else { return false }
            }
        } while remaining > 0
        return true
    }

    // MARK: - Telemetry

    /// The phone's battery, heat and Low Power changed (the app's observer of `UIDevice` and `ProcessInfo`): the
    /// next telemetry sample carries it.
    public func devicePowerChanged(_ power: DevicePower) {
        self.power = power
    }

    private func startTelemetryIfNeeded() {
        guard let session = telemetrySession, telemetryTask == nil else { return }
        telemetryTask = Task { [weak self] in
            let interval = Duration.milliseconds(Int64(session.log.sampleInterval * 1000))
            while !Task.isCancelled {
                guard let self else { return }
                await self.sampleTelemetry(session)
                do { try await self.timeline.sleep(for: interval) } catch { return }
            }
        }
    }

    /// One sample (active while the rider watches a trip), and the batch it makes due, if any.
    private func sampleTelemetry(_ session: TelemetrySession) async {
        let active = isScreenVisible && machine.isActive
        let sample = DeviceSample(power, at: timeline.now(), active: active, degraded: false)
        guard let batch = telemetry.record(sample) else { return }
        do {
            try await api.sendTelemetry(session.body(batch))
            telemetry.accepted()
        } catch let refusal as CallError where refusal.isRejection {
            // Refused: the same samples can never be accepted.
            telemetry.refused()
        } catch {
            telemetry.failed()
        }
    }

    // MARK: - Retries and errors

    /// Makes `call` with the request retries (1 s, then 2 s); nil when it was refused (the refusal on screen) or
    /// never answered (`failure` on screen).
    private func withRetries<T: Sendable>(failure: RiderScreen.Problem, _ call: () async throws -> T) async -> T? {
        var attempt = 1
        while true {
            do {
                let value = try await call()
                await reachedOverREST()
                return value
            } catch let error as CallError where error.isRejection {
                await reachedOverREST()
                problem = Self.problem(refusedWith: error)
                return nil
            } catch {
                isOffline = true
                let retryAfter = error.asCallError.retryAfter
                guard let wait = configuration.requestRetries.delay(afterAttempt: attempt, retryAfter: retryAfter)
                else {
                    problem = failure
                    return nil
                }
                stepTaken()
                do { try await timeline.sleep(for: .milliseconds(Int64((wait * 1000).rounded()))) } catch { return nil }
                attempt += 1
            }
        }
    }

    /// Takes a call's error: a refusal means the server was reached; no answer means offline. With a `failure`
    /// (something the rider asked for) the screen says what went wrong; without one (a resync, a poll) nothing.
    private func show(_ error: any Error, failure: RiderScreen.Problem?) {
        if let error = error as? CallError, error.isRejection {
            markReached()
            if failure != nil { problem = Self.problem(refusedWith: error) }
        } else {
            isOffline = true
            if let failure { problem = failure }
        }
    }

    private func markReached() { isOffline = false }

    /// A REST answer arrived: we are online, and its server time is one more clock sample.
    private func reachedOverREST() async {
        markReached()
        if let sample = await api.latestClockSample() { serverClock.add(sample) }
    }

    /// What the screen says of a refusal. (A 429 is not one: it is retried, and says `failure` once the retries
    /// run out.)
    static func problem(refusedWith error: CallError) -> RiderScreen.Problem {
        if error.apiError?.code == .invalidState { return .tripMovedOn }
        return .refused(code: error.apiError?.code, reason: error.apiError?.message ?? error.message)
    }

    static func cancellable(_ state: TripState) -> Bool {
        state == .searching || state == .driverAssigned || state == .driverArrived
    }

    // MARK: - The screen

    /// The screen at `serverNow`, read from what the model knows; it changes nothing.
    private func makeScreen(serverNow: Date) -> RiderScreen {
        guard let trip = machine.trip else {
            return RiderScreen(phase: isOffline ? .offline : .idle, isRequesting: isRequesting, problem: problem)
        }
        var screen = RiderScreen(
            phase: Self.phase(of: trip.state), tripID: trip.id, driver: trip.driver, fare: trip.fare,
            canCancel: Self.cancellable(trip.state) && !isCancelling, isRequesting: isRequesting, problem: problem)
        let tracksCar = trip.state == .driverAssigned || trip.state == .driverArrived || trip.state == .onTrip
        if tracksCar {
            let freshness = PinFreshness(of: tracker.latest, serverNow: serverNow)
            screen.pin = freshness.level
            screen.showsDelayedBanner = freshness.showsDelayedBanner
            if trip.state != .onTrip, let car = tracker.latest?.coordinate {
                screen.distanceToCarMeters = Int(trip.pickup.distance(to: car).rounded())
            }
        }
        screen.etaMinutes = smoother.shown(at: serverNow)
        if isOffline && trip.state.isActive { screen.phase = .offline }
        return screen
    }

    /// After every change the model makes: the smoother is told what the minutes now come from, a promise that
    /// moved is stored, and the screen is published.
    private func stepTaken() {
        let now = serverNow
        smoother.observe(arrival: etaArrivalShown(), fixTakenAt: tracker.latest?.ageOrigin, at: now)
        promiseMayHaveMoved(at: now)
        refresh()
    }

    /// The arrival the screen's minutes come from (server time), or nil when the trip's state shows none: on the
    /// way to the pickup or the dropoff, the server's estimate, or when the cohort's flags say so, the straight
    /// line from where the car is to where it is going.
    private func etaArrivalShown() -> Date? {
        guard let trip = machine.trip, trip.state == .driverAssigned || trip.state == .onTrip else { return nil }
        guard config.etaSourceOrDefault == .straightLine else { return latestArrival }
        let target = trip.state == .onTrip ? trip.dropoff : trip.pickup
        return tracker.latest.flatMap { position in
            StraightLineETA.seconds(from: position.coordinate, to: target).map { etaArrival($0, from: position) }
        }
    }

    /// Stores the promise if it moved, and wakes again when the smoother says it will move by itself (a
    /// disagreement running out its hold with no new estimate), so that promise is stored too.
    private func promiseMayHaveMoved(at now: Date) {
        storePromiseIfMoved(at: now)
        let due = smoother.promiseMoves(after: now)
        guard due != promiseCheck?.due else { return }
        promiseCheck?.task.cancel()
        promiseCheck = nil
        guard let due else { return }
        // The phone's date at which the server's clock reads `due`.
        let wake = due.addingTimeInterval(-serverClock.offset)
        let task = Task { [weak self, timeline] in
            do { try await timeline.sleep(until: wake) } catch { return }
            self?.promiseCheckDue()
        }
        promiseCheck = (due, task)
    }

    private func promiseCheckDue() {
        promiseCheck = nil
        let now = serverNow
        smoother.advance(to: now)
        promiseMayHaveMoved(at: now)
        refresh()
    }

    static func phase(of state: TripState) -> RiderScreen.Phase {
        switch state {
        case .searching: return .searching
        case .driverAssigned: return .driverAssigned
        case .driverArrived: return .driverArrived
        case .onTrip: return .onTrip
        case .completed: return .completed
        case .cancelled: return .cancelled
        case .noDriversFound: return .noDriversFound
        }
    }
}
