import Foundation
import HailAppStore
import HailClient
import HailCore
import HailDriver
import HailProtocol
import HailTesting
import HailTime

/// One driver phone in the crash loop: a `DriverModel` on the live transports and a SQLite outbox file, a
/// car that drives itself to each pickup and dropoff, and an autopilot tapping what a driver would, as
/// `hail drive --auto` does; with a record of every trip version it applied and every action it queued.
@MainActor
final class CrashLoopDriver {
    let id: String
    let model: DriverModel
    let outboxPath: String
    /// Every trip version the model applied, in order (noted after each of its steps).
    private(set) var applied: [TripSighting] = []
    /// Every action that entered the outbox, by idempotency key.
    private(set) var queued: [UUID: DriverIntent] = [:]
    /// The actions the server refused, by key, with its reason.
    private(set) var rejected: [UUID: String] = [:]
    private let follower: RouteFollower
    private let timeline = Timeline.system()
    private var routedFor: String?
    private var tapped: Set<String> = []
    private var pilot: Task<Void, Never>?
    private var recorder: Task<Void, Never>?

    init(index: Int, server: URL, token: String, connector: SocketConnector, outboxPath: String, start: Coordinate)
        async throws
    {
        id = "driver-\(index)"
        self.outboxPath = outboxPath
        // 30 m/s: the legs are short, and the car still passes every plausibility check.
        follower = RouteFollower(start: start, speed: 30, timeline: timeline)
        model = DriverModel(
            api: DriverHTTPAPI(transport: HTTPTransport(baseURL: server, token: token, timeout: 5)),
            channel: DriverLiveChannel(connector: connector, server: server, token: token),
            location: follower, store: try await SQLiteOutboxStore(path: outboxPath), timeline: timeline,
            random: SplitMix64(seed: UInt64(index) + 1))
    }

    /// Restores, goes online and starts the autopilot (unless a test taps by hand).
    func start(autopilot: Bool = true) async {
        let changes = model.changes()
        recorder = Task { [weak self] in
            for await _ in changes {
                guard let self else { return }
                self.note(self.model)
            }
        }
        await model.start()
        await model.goOnline()
        guard autopilot else { return }
        pilot = Task { [weak self] in
            let timeline = Timeline.system()
            while !Task.isCancelled {
                do { try await timeline.sleep(until: timeline.now().addingTimeInterval(1)) } catch { return }
                await self?.step()
            }
        }
    }

    /// Stops the autopilot and the model, as a killed app would.
    func stop() async {
        pilot?.cancel()
        await model.shutdown()
    }

    /// True once nothing waits in the outbox and no trip is under way: this driver has settled.
    var isSettled: Bool {
        model.outbox.entries.isEmpty && model.lastSaved?.outbox.entries.isEmpty == true
            && model.trip?.state.isActive != true
    }

    private func step() async {
        if model.offer != nil, model.pendingAction == nil {
            await model.accept()
            return
        }
        guard let trip = model.trip, trip.state.isActive, model.pendingAction == nil else { return }
        let key = "\(trip.id)/\(trip.state.rawValue)"
        if routedFor != key {
            routedFor = key
            switch trip.state {
            case .driverAssigned: await follower.drive(through: [trip.pickup])
            case .onTrip: await follower.drive(through: [trip.dropoff])
            default: break
            }
            return
        }
        let stopped = await follower.isStopped
        switch trip.state {
        case .driverAssigned where stopped: await tap(.arrived, trip: trip)
        case .driverArrived: await tap(.started, trip: trip)
        case .onTrip where stopped: await tap(.ended, trip: trip)
        default: break
        }
    }

    /// One tap per action per trip, as a driver makes it: the outbox, not the driver, retries.
    private func tap(_ kind: DriverIntent.Kind, trip: Trip) async {
        guard tapped.insert("\(trip.id)/\(kind)").inserted else { return }
        await model.tap(kind)
    }

    private func note(_ model: DriverModel) {
        if let trip = model.trip, applied.last != TripSighting(trip) { applied.append(TripSighting(trip)) }
        for entry in model.outbox.entries where queued[entry.key] == nil { queued[entry.key] = entry.intent }
        for rejection in model.outbox.rejections where rejected[rejection.key] == nil {
            queued[rejection.key] = rejection.intent
            rejected[rejection.key] = rejection.reason
        }
    }
}
