import Foundation
import HailAppStore
import HailClient
import HailCore
import HailProtocol
import HailRider
import HailTime

/// One rider app of a fleet: a `RiderModel` with its durable cursor on the logging seams, riding ride after ride
/// (one in `cancelOneIn` cancelled at a drawn moment), its screen refreshed once a second as a phone's is, and each
/// screen logged as a `frame` with the pin it shows beside the position it shows it for.
@MainActor
final class FleetRider {
    let subject: String
    private let model: RiderModel
    private let cursors: SQLiteCursorStore
    private let log: FleetLog
    private let timeline: Timeline
    private let configuration: FleetConfiguration
    private var random: SplitMix64
    private var lastFrame: (screen: RiderScreen, seq: Int64?, at: Date)?
    private var tasks: [Task<Void, Never>] = []
    /// Rides that ended, by the state they ended in.
    private(set) var outcomes: [String: Int] = [:]

    init(index: Int, configuration: FleetConfiguration, wiring: FleetWiring) async throws {
        subject = "\(configuration.prefix)-r-\(index)"
        self.configuration = configuration
        timeline = wiring.timeline
        random = SplitMix64(seed: configuration.seed &* 104_729 &+ UInt64(index))
        log = try FleetLog(path: configuration.logDirectory + "/rider-\(index).jsonl")
        cursors = try await SQLiteCursorStore.open(path: configuration.logDirectory + "/rider-\(index).sqlite")
        let token = configuration.token("rider", subject)
        let client = ClientInfo(app: "hail-fleet-rider", version: "1.0.0", deviceModel: "fleet")
        let transport = HTTPTransport(
            baseURL: configuration.server, token: token, client: client, exchange: wiring.exchange)
        let rest = RESTOutcome(log: log, timeline: timeline)
        model = RiderModel(
            api: LoggingTripAPI(inner: RiderHTTPAPI(transport: transport), rest: rest),
            channel: LoggingLiveChannel(
                inner: RiderLiveChannel(
                    baseURL: configuration.server, token: token, connector: wiring.connector, client: client),
                log: log, rest: rest),
            cursors: cursors, timeline: timeline)
        var line = event("app")
        line.role = "rider"
        line.subject = subject
        log.write(line)
    }

    /// Rides until cancelled (or `ridesPerRider` rides), then leaves the app.
    func run() async {
        let model = self.model
        tasks.append(
            Task { [weak self] in
                for await _ in model.changes() { self?.frame() }
            })
        tasks.append(
            Task { [weak self] in
                guard let timeline = self?.timeline else { return }
                while !Task.isCancelled {
                    do { try await timeline.sleep(until: timeline.now().addingTimeInterval(1)) } catch { return }
                    // A phone's screen grades its pin once a second; `refresh()` announces the screen, which the
                    // stream above logs.
                    self?.model.refresh()
                }
            })
        model.screenVisibilityChanged(true)
        await model.launch()
        var ride = 0
        while !Task.isCancelled, configuration.ridesPerRider == 0 || ride < configuration.ridesPerRider {
            ride += 1
            await self.ride(ride)
            let pause = 2 + Double(random.next() % 5)
            do { try await timeline.sleep(until: timeline.now().addingTimeInterval(pause)) } catch { break }
        }
    }

    /// Closes the app.
    func stop() async {
        for task in tasks { task.cancel() }
        model.stop()
        await cursors.close()
        log.close()
    }

    /// One ride: requested (unless one is already under way after a restart), followed to its end, perhaps
    /// cancelled on the way.
    private func ride(_ number: Int) async {
        let pickup = configuration.area.point(using: &random)
        let dropoff = configuration.area.point(using: &random)
        let draw = random.next()
        let cancelAfter =
            configuration.cancelOneIn > 0 && draw % UInt64(configuration.cancelOneIn) == 0
            ? Double(1 + (draw >> 8) % 25) : 0
        var line = event("ride")
        line.ride = number
        line.step = "start"
        line.from = [pickup.lat, pickup.lng]
        line.to = [dropoff.lat, dropoff.lng]
        line.cancelAfter = cancelAfter
        log.write(line)
        // The last ride's trip stays on screen until the next: a request that made no trip leaves it there.
        let shownBefore = model.trip?.state.isActive == true ? nil : model.trip?.id
        if model.trip?.state.isActive != true {
            await model.requestRide(pickup: pickup, dropoff: dropoff, product: .economy)
        }
        let requested = timeline.now()
        var cancelled = false
        while !Task.isCancelled, let trip = model.trip, trip.state.isActive {
            if cancelAfter > 0, !cancelled, timeline.now().timeIntervalSince(requested) >= cancelAfter,
                model.screen.canCancel
            {
                cancelled = true
                Task { await self.model.cancel() }
            }
            do { try await timeline.sleep(until: timeline.now().addingTimeInterval(0.5)) } catch { break }
        }
        let trip = model.trip.flatMap { $0.id == shownBefore ? nil : $0 }
        var end = event("ride")
        end.ride = number
        end.step = "end"
        end.trip = trip?.id
        end.state = trip?.state.rawValue ?? "notRequested"
        end.fare = trip?.fare?.amountMinor
        end.distance = trip?.receipt?.distanceMeters
        end.error = trip == nil ? model.screen.problem.map { "\($0)" } : nil
        log.write(end)
        outcomes[end.state ?? "notRequested", default: 0] += 1
    }

    /// Logs the screen the rider sees now (what a view bound to the model shows until its next step or refresh):
    /// when it changed, and once a second while the pin says live (the instants I10 judges).
    private func frame() {
        let screen = model.screen
        let location = model.driverLocation
        let now = timeline.now()
        if let lastFrame, lastFrame.screen == screen, lastFrame.seq == location?.seq,
            screen.pin != .live || now.timeIntervalSince(lastFrame.at) < 1
        {
            return
        }
        lastFrame = (screen, location?.seq, now)
        var line = event("frame")
        line.phase = screen.phase.rawValue
        line.trip = screen.tripID
        line.state = model.trip?.state.rawValue
        line.version = model.trip?.version
        line.pin = screen.pin?.rawValue
        line.age = screen.pin == nil ? nil : model.pinFreshness.age
        line.driver = model.trip?.driver?.id
        line.seq = location?.seq
        line.fixedAt = location?.fixedAt?.timeIntervalSince1970
        line.receivedAt = location?.receivedAt.timeIntervalSince1970
        line.clockOffset = model.serverClockOffset
        log.write(line)
    }

    private func event(_ kind: String) -> FleetEvent {
        FleetEvent(t: timeline.now().timeIntervalSince1970, ev: kind)
    }
}
