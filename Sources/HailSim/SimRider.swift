import Foundation
import HailClient
import HailCore
import HailProtocol
import HailRider

/// One simulated rider: a real `RiderModel` on the live transports (through its own network conditions)
/// that requests a ride between random points, watches the trip to its end (sometimes cancelling once a
/// driver is assigned), and waits a while before the next. While it watches, its screen is sampled five
/// times a second and judged against where the driver's car truly was; the app may be killed and
/// relaunched on the way, keeping only its stored cursor.
@MainActor
final class SimRider {
    private(set) var model: RiderModel
    /// What the rider's screen showed, judged.
    private(set) var audit = ScreenAudit()
    private let world: CityWorld
    private var random: SplitMix64
    private let link: FaultyRiderLink
    /// The APNs device token this rider's phone has (`SimPushTokens`).
    private let deviceToken: Data
    private let cursors = InMemoryCursorStore()
    private let conditions: NetworkConditions
    private let truth: @MainActor (String) -> TruthTrace?
    /// False during the city's warm-up: the screen is not judged yet.
    private let measuring: @MainActor () -> Bool
    private let record: @MainActor (RiderOutcome) -> Void
    private var nextKill: Date?
    /// When the current trip's driver was first shown, with the pickup ETA shown then.
    private(set) var assigned: (at: Date, etaSeconds: Int?)?
    private var killed = false

    init(
        id: String, world: CityWorld, random: SplitMix64, truth: @escaping @MainActor (String) -> TruthTrace?,
        measuring: @escaping @MainActor () -> Bool = { true }, record: @escaping @MainActor (RiderOutcome) -> Void
    ) {
        var random = random
        self.world = world
        deviceToken = SimPushTokens.device(riderID: id)
        let token = world.mint(.rider, id)
        let client = ClientInfo(app: "hail-sim", version: SimDriver.appVersion, deviceModel: Self.deviceModel)
        conditions = NetworkConditions(
            profile: world.configuration.network, timeline: world.timeline, random: random.split(),
            pressable: world.configuration.pressableFaults)
        link = FaultyRiderLink(
            api: RiderHTTPAPI(transport: HTTPTransport(baseURL: world.server, token: token, client: client)),
            channel: RiderLiveChannel(baseURL: world.server, token: token, connector: world.connector, client: client),
            faults: FaultInjector(conditions: conditions))
        model = RiderModel(
            api: link, channel: link, cursors: cursors, timeline: world.timeline,
            random: random.split(), telemetry: Self.session(crashedBefore: false))
        self.random = random
        self.truth = truth
        self.measuring = measuring
        self.record = record
    }

    /// True while the rider waits for a driver assigned longer than twice the pickup ETA shown then plus
    /// 30 s: a car lost on the way or an ETA far from the truth.
    func pickupOverdue(at now: Date) -> Bool {
        guard model.trip?.state == .driverAssigned, let assigned else { return false }
        return now.timeIntervalSince(assigned.at) > 2 * Double(assigned.etaSeconds ?? 0) + 30
    }

    /// Requests trips one after another until the task is cancelled.
    func run() async {
        if let wait = await conditions.timeToKill() { nextKill = world.timeline.now().addingTimeInterval(wait) }
        model.screenVisibilityChanged(true)
        await model.launch()
        await model.deviceTokenReceived(deviceToken, environment: .sandbox)
        while !Task.isCancelled {
            // Uniform between half and one and a half of the mean interval.
            let pause = world.configuration.requestInterval * (0.5 + random.unit())
            do { try await world.timeline.sleep(until: world.timeline.now().addingTimeInterval(pause)) } catch { break }
            await ride()
        }
        model.stop()
    }

    private func ride() async {
        let pickup = world.randomSpot(using: &random)
        var dropoff = world.randomSpot(using: &random)
        let shortest = world.configuration.minimumTripMeters
        let lengths = shortest...max(shortest, world.configuration.maximumTripMeters)
        // A few draws find a dropoff in range on any sensible map; past that the last draw stands.
        for _ in 0..<50 where !lengths.contains(dropoff.distance(to: pickup)) {
            dropoff = world.randomSpot(using: &random)
        }
        let cancels = random.unit() < world.configuration.cancelProbability
        let tapped = world.timeline.now()
        await model.requestRide(pickup: pickup, dropoff: dropoff, product: .economy)
        guard let tripID = model.trip?.id, model.trip?.state.isActive == true else {
            record(.requestFailed)
            return
        }
        record(.requested)
        assigned = nil
        // As the app does: it starts a Live Activity for the trip and registers the activity's push token.
        await model.liveActivityTokenReceived(SimPushTokens.liveActivity(tripID: tripID), for: tripID)
        let sampler = Task { [weak self] in await self?.sample(tripID: tripID) }
        defer {
            sampler.cancel()
            audit.finishTrip()
        }
        var lastVersion = model.trip?.version ?? 0
        var sawDriver = false
        while !Task.isCancelled {
            var seen: RiderScreen?
            for await screen in model.changes() where screen != seen {
                seen = screen
                if let trip = model.trip, trip.id == tripID {
                    if trip.version < lastVersion { record(.versionWentBack) }
                    lastVersion = max(lastVersion, trip.version)
                }
                switch screen.phase {
                case .driverAssigned where !sawDriver:
                    sawDriver = true
                    record(.assigned(afterSeconds: world.timeline.now().timeIntervalSince(tapped)))
                    assigned = (world.timeline.now(), model.trip?.etaSeconds)
                    if let eta = model.trip?.etaSeconds { record(.pickupETA(eta)) }
                    if cancels { await model.cancel() }
                case .completed:
                    observe(tripID: tripID)
                    record(.completed(screen.fare ?? model.trip?.fare))
                    return
                case .cancelled:
                    observe(tripID: tripID)
                    record(.cancelled)
                    return
                case .noDriversFound:
                    observe(tripID: tripID)
                    record(.noDriversFound)
                    return
                default:
                    break
                }
            }
            guard killed else { return }
            await relaunch()
            if model.trip?.id != tripID {
                // The trip ended while the app was dead: launch finds no active trip, so the app reads the
                // one it was showing, as its trip history would.
                await settle(tripID: tripID)
                return
            }
        }
    }

    private func settle(tripID: String) async {
        guard let trip = try? await link.trip(id: tripID) else { return }
        if measuring() {
            audit.observe(
                ScreenFrame(
                    time: world.timeline.now(), tripID: trip.id, state: trip.state, version: trip.version,
                    driverID: trip.driver?.id, fare: trip.fare, showsDelayedBanner: false)
            ) { truth($0) }
        }
        switch trip.state {
        case .completed: record(.completed(trip.fare))
        case .cancelled: record(.cancelled)
        case .noDriversFound: record(.noDriversFound)
        default: break
        }
    }

    /// Samples the screen five times a second, as a display link would draw it, until cancelled.
    private func sample(tripID: String) async {
        var next = world.timeline.now()
        while !Task.isCancelled {
            next = next.addingTimeInterval(0.2)
            do { try await world.timeline.sleep(until: next) } catch { return }
            if let nextKill, next >= nextKill, !killed {
                kill()
                continue
            }
            guard !killed else { continue }
            model.refresh()
            observe(tripID: tripID)
        }
    }

    private func observe(tripID: String) {
        guard measuring(), let trip = model.trip, trip.id == tripID else { return }
        let now = world.timeline.now()
        let frame = ScreenFrame(
            time: now, tripID: trip.id, state: trip.state, version: trip.version, driverID: trip.driver?.id,
            shown: model.driverLocation, marker: model.marker(at: now)?.coordinate, etaMinutes: model.screen.etaMinutes,
            fare: model.screen.fare, showsDelayedBanner: model.screen.showsDelayedBanner, pin: model.screen.pin,
            clockOffset: model.serverClockOffset)
        audit.observe(frame) { truth($0) }
    }

    /// The simulated riders' phone model.
    static let deviceModel = "iPhone15,4"

    /// A new app session's telemetry identity.
    static func session(crashedBefore: Bool) -> TelemetrySession {
        TelemetrySession(
            appVersion: SimDriver.appVersion, deviceModel: deviceModel, previousSessionCrashed: crashedBefore)
    }

    /// The app is killed: everything in memory goes, the stored cursor stays.
    private func kill() {
        killed = true
        model.stop()
        record(.appKilled)
    }

    /// The app comes back a few seconds later and rebuilds the trip from the server and its cursor.
    private func relaunch() async {
        do { try await world.timeline.sleep(until: world.timeline.now().addingTimeInterval(3)) } catch { return }
        // A kill is a crash as the next session sees it.
        model = RiderModel(
            api: link, channel: link, cursors: cursors, timeline: world.timeline,
            random: random.split(), telemetry: Self.session(crashedBefore: true))
        if let wait = await conditions.timeToKill() { nextKill = world.timeline.now().addingTimeInterval(wait) }
        killed = false
        model.screenVisibilityChanged(true)
        await model.launch()
        // iOS hands a relaunched app its device token again, and the trip's Live Activity outlives the app.
        await model.deviceTokenReceived(deviceToken, environment: .sandbox)
        if let trip = model.trip, trip.state.isActive {
            await model.liveActivityTokenReceived(SimPushTokens.liveActivity(tripID: trip.id), for: trip.id)
        }
    }

    /// Kills the app at its next frame, as a pressed fault of the demo's console; it relaunches a few
    /// seconds later and rebuilds the trip from the server and its cursor.
    func pressKill() { nextKill = world.timeline.now() }

    /// Stalls the app's socket for `seconds` from now, as a pressed fault; returns when it ends.
    func pressStall(seconds: Double) async -> Double { await conditions.pressStall(seconds: seconds) }
}
