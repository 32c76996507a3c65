import Foundation
import HailClient
import HailCore
import HailDriver
import HailProtocol
import HailRoads

/// One simulated driver: a real `DriverModel` on the live transports (through its own network
/// conditions), its phone a `SimulatedCar`, and a pilot that does what a driver does once a second: roam
/// while waiting, answer offers, drive to the pickup and the dropoff, tap arrived, started and ended. The
/// app may be killed and relaunched; its outbox store survives, as a file would. The phone's battery
/// (`BatteryModel`) drains by the policy in force and the batches the app sends, and the app reports it in
/// its telemetry as a phone would; a relaunch after a kill says the session before crashed.
@MainActor
final class SimDriver {
    let id: String
    private(set) var model: DriverModel
    let car: SimulatedCar
    private let world: CityWorld
    private var random: SplitMix64
    private let link: FaultyDriverLink
    private let store = MemoryOutboxStore()
    private let conditions: NetworkConditions
    private let confirm: @MainActor (Trip, Date) -> Void
    private var answered: Set<String> = []
    private var routedFor: String?
    private var arrivedAt: Date?
    /// Until when the waiting car stays parked; nil while it drives.
    private var parkedUntil: Date?
    private var lastConfirmed: Trip?
    private var nextKill: Date?
    private var wasInDeadZone = false
    /// What earlier (killed) app instances sent.
    private var sentBefore = DriverLocationPipeline.Stats()
    /// When the driver went online first, and when it stopped.
    private(set) var onlineSince: Date?
    private(set) var stoppedAt: Date?
    /// Times this driver's app was killed.
    private(set) var kills = 0
    /// How long the app went without a link while online.
    private(set) var links = LinkWatch()
    /// The trips this driver completed, with what the car truly drove on them.
    private(set) var completedTrips: [FareCheck] = []
    /// The trip on board: its id, the odometer and the time when the server confirmed the start.
    private var onBoard: (tripID: String, odometer: Double, at: Date, kills: Int)?
    /// The phone's battery, drained second by second.
    private(set) var battery: BatteryModel
    /// The phone's hardware model, sent in `X-Hail-Client` and telemetry.
    let deviceModel: String
    /// The batches the battery has been told of.
    private var batchesCharged = 0
    /// What was injected on this driver's trips (`SafetyInjection`), with when each began.
    private(set) var injections: [InjectedEvent] = []
    /// The trips an injection was drawn for, and the one waiting to begin: its trip, kind and when.
    private var drawnFor: Set<String> = []
    private var plannedInjection: (tripID: String, kind: TripAlertKind, at: Date)?
    /// The wrong turn under way (its index in `injections`), or the stop and when it ends.
    private var deviating: Int?
    /// The wrong turn's car is back inside the corridor (within 100 m of its route) since it last left it.
    private var backInside = false
    private var standing: (index: Int, until: Date)?
    /// The route the navigation last reported on the trip under way.
    private var reportedRoute: [Coordinate]?

    /// The hardware models the simulated phones are, one per driver, drawn from the seed.
    static let deviceModels = ["iPhone13,2", "iPhone14,5", "iPhone15,2"]
    /// The app's version in the simulated phones.
    static let appVersion = "1.0.0"

    /// FNV-1a of `text`: the same on every run.
    static func stableHash(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }

    /// One completed trip: the fare the server charged, the distance it charged for, and what the car truly
    /// drove from start to end.
    struct FareCheck: Sendable, Hashable {
        var tripID: String
        var fare: Money
        /// The distance on the trip's receipt, metres; nil from a server that sends no receipt.
        var chargedMeters: Double?
        /// When the driver saw the trip completed.
        var at: Date
        var drivenMeters: Double
        var onTripSeconds: Double
        /// Times the driver's app was killed between the start and the end confirmed.
        var appKills: Int
    }

    init(id: String, world: CityWorld, random: SplitMix64, confirm: @escaping @MainActor (Trip, Date) -> Void) {
        var random = random
        self.id = id
        self.world = world
        self.confirm = confirm
        let token = world.mint(.driver, id)
        // From the driver's id, not the city's generator, so the rest of the city draws what it drew before.
        let hash = Self.stableHash(id)
        let device = Self.deviceModels[Int(hash % UInt64(Self.deviceModels.count))]
        deviceModel = device
        battery = BatteryModel(level: 0.6 + 0.4 * Double((hash >> 16) % 1000) / 1000, at: world.timeline.now())
        let client = ClientInfo(app: "hail-sim", version: Self.appVersion, deviceModel: device)
        conditions = NetworkConditions(
            profile: world.configuration.network, timeline: world.timeline, random: random.split(),
            pressable: world.configuration.pressableFaults)
        car = SimulatedCar(
            start: world.randomSpot(using: &random), timeline: world.timeline,
            speedFactor: world.configuration.speedFactor, noiseMeters: world.configuration.gpsNoiseMeters,
            random: random.split(), tunnels: world.tunnels, outlierProbability: world.configuration.outlierProbability)
        link = FaultyDriverLink(
            api: DriverHTTPAPI(transport: HTTPTransport(baseURL: world.server, token: token, client: client)),
            channel: DriverLiveChannel(connector: world.connector, server: world.server, token: token, client: client),
            faults: FaultInjector(conditions: conditions), truth: car.truth)
        model = DriverModel(
            api: link, channel: link, location: car, store: store, timeline: world.timeline, random: random.split(),
            telemetry: TelemetrySession(
                appVersion: Self.appVersion, deviceModel: device, previousSessionCrashed: false))
        self.random = random
    }

    /// Everything this driver's app sent so far, across kills.
    var sent: DriverLocationPipeline.Stats {
        var total = sentBefore
        let current = model.pipeline.stats
        total.batches += current.batches
        total.backlogBatches += current.backlogBatches
        total.points += current.points
        total.bytes += current.bytes
        total.keepAlives += current.keepAlives
        return total
    }

    /// Goes online and pilots until the task is cancelled, then goes offline.
    func run() async {
        await model.start()
        await model.goOnline()
        onlineSince = world.timeline.now()
        if let wait = await conditions.timeToKill() { nextKill = world.timeline.now().addingTimeInterval(wait) }
        var next = world.timeline.now()
        while !Task.isCancelled {
            next = next.addingTimeInterval(1)
            do { try await world.timeline.sleep(until: next) } catch { break }
            if let nextKill, next >= nextKill {
                await killAndRelaunch()
                continue
            }
            // The phone's reachability callback: the network is back, so what waits for it goes now.
            let dead = await conditions.deadZoneEnd(at: next.timeIntervalSince1970) != nil
            if wasInDeadZone && !dead { model.networkMayBeBack() }
            wasInDeadZone = dead
            links.observe(online: model.isOnline, link: model.link, at: next)
            chargeBattery(at: next)
            await noteConfirmed()
            await step()
        }
        stoppedAt = world.timeline.now()
        await model.goOffline()
        await model.shutdown()
    }

    /// Tells the city about each trip change the server confirmed to this driver.
    private func noteConfirmed() async {
        guard let trip = model.trip, trip != lastConfirmed else { return }
        let now = world.timeline.now()
        if trip.id != lastConfirmed?.id || trip.version > (lastConfirmed?.version ?? 0) {
            confirm(trip, now)
            switch trip.state {
            case .onTrip where onBoard?.tripID != trip.id:
                onBoard = (trip.id, await car.odometer, now, kills)
            case .completed:
                if let onBoard, onBoard.tripID == trip.id, let fare = trip.fare {
                    completedTrips.append(
                        FareCheck(
                            tripID: trip.id, fare: fare, chargedMeters: trip.receipt.map { Double($0.distanceMeters) },
                            at: now,
                            drivenMeters: await car.odometer - onBoard.odometer,
                            onTripSeconds: now.timeIntervalSince(onBoard.at), appKills: kills - onBoard.kills))
                }
                onBoard = nil
            default:
                break
            }
        }
        lastConfirmed = trip
    }

    /// Drains the battery over the second just gone, under the policy the phone applied, and for every batch the
    /// app sent in it; the app reads the new level as a phone's would.
    private func chargeBattery(at now: Date) {
        battery.advance(to: now, policy: model.sourcePolicy ?? .off)
        let batches = sent.batches
        for _ in batchesCharged..<max(batchesCharged, batches) { battery.sent(at: now) }
        batchesCharged = max(batchesCharged, batches)
        model.devicePowerChanged(
            DevicePower(
                batteryLevel: (battery.level * 100).rounded() / 100, batteryState: .unplugged, thermal: model.thermal,
                lowPower: model.lowPower))
    }

    private func killAndRelaunch() async {
        let stats = model.pipeline.stats
        kills += 1
        await model.shutdown()
        sentBefore.batches += stats.batches
        sentBefore.backlogBatches += stats.backlogBatches
        sentBefore.points += stats.points
        sentBefore.bytes += stats.bytes
        sentBefore.keepAlives += stats.keepAlives
        do { try await world.timeline.sleep(until: world.timeline.now().addingTimeInterval(3)) } catch { return }
        model = DriverModel(
            api: link, channel: link, location: car, store: store, timeline: world.timeline, random: random.split(),
            telemetry: TelemetrySession(
                appVersion: Self.appVersion, deviceModel: deviceModel, previousSessionCrashed: true))
        await model.start()
        // Pilot memory goes with the app: routes are planned again from the restored trip.
        routedFor = nil
        nextKill = await conditions.timeToKill().map { world.timeline.now().addingTimeInterval($0) }
    }

    private func step() async {
        if let offer = model.offer, model.pendingAction == nil, !answered.contains(offer.trip.id) {
            answered.insert(offer.trip.id)
            if random.unit() < world.configuration.acceptProbability {
                await model.accept()
            } else {
                await model.decline()
            }
            return
        }
        guard let trip = model.trip, trip.state.isActive, trip.state != .searching else {
            // Waiting for a trip: park a while at a corner of the town, as drivers wait at a rank or a curb,
            // then move to another. Cruising without a stop kept cars past the pickup they were offered (the
            // server knows a waiting car's position from up to 15 s before), and on one-way streets the way
            // back was a loop of minutes.
            if !model.isOnline { await model.goOnline() }
            guard await car.isStopped else { return }
            let now = world.timeline.now()
            if let parkedUntil, now < parkedUntil { return }
            if parkedUntil == nil {
                let park = world.configuration.idleParkSeconds
                parkedUntil = now.addingTimeInterval(
                    park.lowerBound + random.unit() * (park.upperBound - park.lowerBound))
                return
            }
            parkedUntil = nil
            await drive(to: world.randomSpot(using: &random))
            return
        }
        guard model.pendingAction == nil else { return }
        if trip.state == .onTrip, let injection = world.configuration.injection,
            await inject(injection, on: trip)
        {
            return
        }
        let key = "\(trip.id)/\(trip.state.rawValue)"
        if routedFor != key {
            routedFor = key
            switch trip.state {
            case .driverAssigned: await drive(to: trip.pickup)
            case .onTrip: await drive(to: trip.dropoff)
            case .driverArrived: arrivedAt = arrivedAt ?? world.timeline.now()
            default: break
            }
            return
        }
        switch trip.state {
        case .driverAssigned where await car.isStopped:
            arrivedAt = nil
            await model.tap(.arrived)
        case .driverArrived:
            let waited = world.timeline.now().timeIntervalSince(arrivedAt ?? world.timeline.now())
            if waited >= world.configuration.boardingSeconds {
                arrivedAt = nil
                await model.tap(.started)
            }
        case .onTrip where await car.isStopped:
            await model.tap(.ended)
        default:
            break
        }
    }

    /// Routes the car along the roads to `target`, from the road it is on in the direction it is going;
    /// straight there when the graph has no route.
    private func drive(to target: Coordinate) async {
        let here = await car.position
        let heading = await car.travelHeading
        let route =
            Self.route(world.router, from: here, heading: heading, to: target)
            ?? world.router.route(from: here, to: target)
            ?? Route(
                distance: here.distance(to: target), duration: here.distance(to: target) / 10,
                coordinates: [here, target], edges: [])
        await car.drive(route)
        // The navigation's route on the trip under way goes to the server, as a driver app's does.
        if model.trip?.state == .onTrip, route.coordinates.count >= 2 {
            reportedRoute = route.coordinates
            model.navigationRouted(route.coordinates)
        }
    }

    /// Carries out what is injected on the trip under way, this second: draws once per trip whether a wrong turn
    /// or a stop comes and when; a wrong turn drives off the reported route, unreported, until the car is
    /// `deviationMeters` off it (and out of the corridor 30 s), then re-routes to the drop-off as navigation would;
    /// a stop stands `stopSeconds`, then drives on. True while the injection drives the car.
    private func inject(_ injection: SafetyInjection, on trip: Trip) async -> Bool {
        let now = world.timeline.now()
        if !drawnFor.contains(trip.id) {
            drawnFor.insert(trip.id)
            let draw = random.unit()
            let span = injection.afterSeconds.upperBound - injection.afterSeconds.lowerBound
            let at = now.addingTimeInterval(injection.afterSeconds.lowerBound + random.unit() * span)
            if draw < injection.deviationProbability {
                plannedInjection = (trip.id, .routeDeviation, at)
            } else if draw < injection.deviationProbability + injection.stopProbability {
                plannedInjection = (trip.id, .longStop, at)
            }
        }
        if let standing {
            guard injections[standing.index].tripID == trip.id else {
                self.standing = nil
                return false
            }
            guard now >= standing.until else { return true }
            injections[standing.index].ended = now
            self.standing = nil
            await drive(to: trip.dropoff)
            return true
        }
        if let index = deviating {
            guard injections[index].tripID == trip.id else {
                deviating = nil
                return false
            }
            let here = await car.position
            let off = reportedRoute.map { RouteDeviationDetector.distance(from: here, to: $0) } ?? 0
            injections[index].farthestMeters = max(injections[index].farthestMeters, off)
            if injections[index].began == nil, off > 100 { injections[index].began = now }
            // Out of the corridor again after being back inside it: a new excursion (`InjectedEvent.exits`).
            if off <= 100 { backInside = true }
            if off > 100, injections[index].exits.isEmpty || backInside {
                injections[index].exits.append(now)
                backInside = false
            }
            let outside = injections[index].began.map { now.timeIntervalSince($0) } ?? 0
            let arrived = await car.isStopped
            if (off >= injection.deviationMeters && outside >= 30) || outside >= 120 || arrived {
                injections[index].ended = now
                deviating = nil
                await drive(to: trip.dropoff)
            }
            return true
        }
        let stopped = await car.isStopped
        guard let planned = plannedInjection, planned.tripID == trip.id, now >= planned.at, !stopped else {
            return false
        }
        plannedInjection = nil
        let here = await car.position
        // Too near the drop-off to stand or turn off: the trip gets nothing.
        guard here.distance(to: trip.dropoff) > 400 else { return false }
        if planned.kind == .longStop {
            await car.halt()
            injections.append(InjectedEvent(tripID: trip.id, kind: .longStop, began: now))
            standing = (injections.count - 1, now.addingTimeInterval(injection.stopSeconds))
            return true
        }
        guard let plan = reportedRoute,
            let target = wrongTurnTarget(
                from: here, plan: plan, dropoff: trip.dropoff, meters: injection.deviationMeters),
            let route = Self.route(world.router, from: here, heading: await car.travelHeading, to: target)
        else { return false }
        // Not reported: the driver left the navigation's route.
        await car.drive(route)
        var event = InjectedEvent(tripID: trip.id, kind: .routeDeviation)
        event.plan = plan
        injections.append(event)
        deviating = injections.count - 1
        backInside = false
        return true
    }

    /// A street corner to turn off towards: well off the plan, farther from the drop-off than the car is, and not
    /// across the town; nil when 40 draws find none.
    private func wrongTurnTarget(from here: Coordinate, plan: [Coordinate], dropoff: Coordinate, meters: Double)
        -> Coordinate?
    {
        let away = here.distance(to: dropoff)
        for _ in 0..<40 {
            let spot = world.randomSpot(using: &random)
            let distance = here.distance(to: spot)
            if distance >= meters, distance <= 3 * meters + 400, spot.distance(to: dropoff) > away + 100,
                RouteDeviationDetector.distance(from: spot, to: plan) >= meters + 100
            {
                return spot
            }
        }
        return nil
    }

    /// The route from a car at `here` driving along `heading`, starting on the road it is on. Snapping the
    /// position alone (any road within 0.5 m of the nearest, either way) put cars that had just passed a
    /// pickup on a one-way street, or crossed a road on a bridge, onto roads they were not on: a rider
    /// shown a driver a few seconds away waited minutes while the car drove a loop from elsewhere. Nil when
    /// no road near the car runs its way.
    static func route(_ router: RoadRouter, from here: Coordinate, heading: Double?, to target: Coordinate) -> HailRoads
        .Route?
    {
        guard let heading else { return nil }
        let graph = router.graph
        let near = router.snapper.candidates(near: here, radius: 30).filter { graph.isInMainComponent(edge: $0.edge) }
        guard let nearest = near.first else { return nil }
        // The road the car is on is among the nearest (the car drives on the graph's own geometry).
        guard
            let start = near.first(where: {
                $0.distance <= nearest.distance + 2 && abs(Heading.shortestTurn(from: heading, to: $0.bearing)) <= 30
            })
        else { return nil }
        let ends = router.snapper.candidates(near: target, radius: 200).filter {
            graph.isInMainComponent(edge: $0.edge)
        }
        guard let last = ends.first else { return nil }
        return router.route(from: [start], to: ends.filter { $0.distance <= last.distance + 0.5 })
    }

    /// Puts the phone in a dead zone for `seconds` from now, as a pressed fault of the demo's console:
    /// no request, no stream; returns when it ends.
    func pressDeadZone(seconds: Double) async -> Double { await conditions.pressDeadZone(seconds: seconds) }
}
