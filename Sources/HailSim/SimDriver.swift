import Foundation
import HailClient
import HailCore
import HailDriver
import HailProtocol
import HailRoads

/// One simulated driver: a real `DriverModel` on the live transports, its phone a `SimulatedCar`, and a
/// pilot that does what a driver does once a second: roam while waiting, answer offers, drive to the
/// pickup and the dropoff, tap arrived, started and ended.
@MainActor
final class SimDriver {
    let model: DriverModel
    private let car: SimulatedCar
    private let world: CityWorld
    private var random: SimRandom
    private var answered: Set<String> = []
    private var routedFor: String?
    private var arrivedAt: Date?

    init(id: String, world: CityWorld, random: SimRandom) {
        var random = random
        self.world = world
        let token = world.mint(.driver, id)
        let link = SimDriverLink(
            api: DriverHTTPAPI(transport: HTTPTransport(baseURL: world.server, token: token)),
            channel: DriverLiveChannel(connector: world.connector, server: world.server, token: token))
        car = SimulatedCar(
            start: world.randomSpot(using: &random), timeline: world.timeline,
            speedFactor: world.configuration.speedFactor, noiseMeters: world.configuration.gpsNoiseMeters,
            random: random.split())
        model = DriverModel(
            api: link, channel: link, location: car, store: MemoryOutboxStore(), timeline: world.timeline,
            random: random.split())
        self.random = random
    }

    /// Goes online and pilots until the task is cancelled, then goes offline.
    func run() async {
        await model.start()
        await model.goOnline()
        var next = world.timeline.now()
        while !Task.isCancelled {
            next = next.addingTimeInterval(1)
            do { try await world.timeline.sleepUntil(next) } catch { break }
            await step()
        }
        await model.goOffline()
        await model.shutdown()
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
            // Waiting for a trip: roam to a random corner of the map, then another.
            if await car.isStopped { await drive(to: world.randomSpot(using: &random)) }
            return
        }
        guard model.pendingAction == nil else { return }
        let key = "\(trip.id)/\(trip.state.rawValue)"
        if routedFor != key {
            routedFor = key
            switch trip.state {
            case .driverAssigned: await drive(to: trip.pickup)
            case .onTrip: await drive(to: trip.dropoff)
            case .driverArrived: arrivedAt = world.timeline.now()
            default: break
            }
            return
        }
        switch trip.state {
        case .driverAssigned where await car.isStopped:
            await model.tap(.arrived)
        case .driverArrived:
            let waited = world.timeline.now().timeIntervalSince(arrivedAt ?? world.timeline.now())
            if waited >= world.configuration.boardingSeconds { await model.tap(.started) }
        case .onTrip where await car.isStopped:
            await model.tap(.ended)
        default:
            break
        }
    }

    /// Routes the car along the roads to `target`; straight there when the graph has no route.
    private func drive(to target: Coordinate) async {
        let here = await car.position
        let route =
            world.router.route(from: here, to: target)
            ?? Route(
                distance: here.distance(to: target), duration: here.distance(to: target) / 10,
                coordinates: [here, target], edges: [])
        await car.drive(route)
    }
}
