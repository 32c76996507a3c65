import Foundation
import HailAppStore
import HailClient
import HailCore
import HailDriver
import HailProtocol
import HailTime

/// One driver app of a fleet: a `DriverModel` with its durable outbox on the logging seams, a car that drives
/// itself to each pickup and dropoff, and an autopilot tapping what a driver would (as `hail drive --auto`).
@MainActor
final class FleetDriver {
    let subject: String
    private let model: DriverModel
    private let follower: RouteFollower
    private let recorder: DriverRecorder
    private let routes: FleetRoutes
    private let timeline: Timeline
    private var routedFor: String?
    private var tapped: Set<String> = []
    private var shown: (id: String, version: Int, state: TripState)?
    private var tasks: [Task<Void, Never>] = []

    init(index: Int, configuration: FleetConfiguration, wiring: FleetWiring, start: Coordinate) async throws {
        subject = "\(configuration.prefix)-d-\(index)"
        let log = try FleetLog(path: configuration.logDirectory + "/driver-\(index).jsonl")
        timeline = wiring.timeline
        recorder = DriverRecorder(log: log, timeline: timeline)
        routes = configuration.routes
        follower = RouteFollower(start: start, speed: configuration.speed, timeline: timeline)
        let token = configuration.token("driver", subject)
        let client = ClientInfo(app: "hail-fleet-driver", version: "1.0.0", deviceModel: "fleet")
        let api = DriverHTTPAPI(
            transport: HTTPTransport(
                baseURL: configuration.server, token: token, client: client, exchange: wiring.exchange))
        let channel = DriverLiveChannel(
            connector: wiring.connector, server: configuration.server, token: token, client: client)
        model = DriverModel(
            api: LoggingDriverAPI(inner: api, recorder: recorder),
            channel: LoggingDriverChannel(inner: channel, recorder: recorder), location: follower,
            store: try await SQLiteOutboxStore(path: configuration.logDirectory + "/driver-\(index).sqlite"),
            timeline: timeline, random: SplitMix64(seed: configuration.seed &* 7919 &+ UInt64(index)))
        var line = recorder.event("app")
        line.role = "driver"
        line.subject = subject
        line.from = [start.lat, start.lng]
        log.write(line)
    }

    /// Restores the saved state, goes online and drives until `stop()`.
    func start() async {
        let model = self.model
        tasks.append(
            Task { [weak self] in
                for await _ in model.changes() { self?.noteTrip() }
            })
        await model.start()
        await model.goOnline()
        tasks.append(
            Task { [weak self] in
                guard let timeline = self?.timeline else { return }
                while !Task.isCancelled {
                    do { try await timeline.sleep(until: timeline.now().addingTimeInterval(1)) } catch { return }
                    await self?.step()
                }
            })
    }

    /// True while the app's positions go out on its stream.
    var isOnStream: Bool { model.link == .stream }

    /// Stops driving and goes offline, as a driver ending a shift.
    func stop() async {
        for task in tasks { task.cancel() }
        await model.goOffline()
        await model.shutdown()
        recorder.log.close()
    }

    /// Logs each trip version the app applies, and keeps the spans its fixes are attributed to.
    private func noteTrip() {
        guard let trip = model.trip else { return }
        if let shown, shown.id == trip.id, shown.version == trip.version, shown.state == trip.state { return }
        shown = (trip.id, trip.version, trip.state)
        recorder.tripShown(trip)
        var line = recorder.event("trip")
        line.trip = trip.id
        line.version = trip.version
        line.state = trip.state.rawValue
        recorder.log.write(line)
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
            let here = await follower.position
            switch trip.state {
            case .driverAssigned:
                await follower.drive(through: routes.waypoints(from: here, to: trip.pickup))
            case .onTrip:
                let waypoints = routes.waypoints(from: here, to: trip.dropoff)
                recorder.drives(tripID: trip.id, meters: ([here] + waypoints).pathLength)
                await follower.drive(through: waypoints)
            default:
                break
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
        if tapped.count > 400 { tapped.removeAll() }
        await model.tap(kind)
    }
}
