import Foundation
import HailClient
import HailCore
import HailProtocol
import HailRider

/// One simulated rider: a real `RiderModel` on the live transports that requests a ride between random
/// points, watches the trip to its end (sometimes cancelling once a driver is assigned), and waits a
/// while before the next.
@MainActor
final class SimRider {
    let model: RiderModel
    private let world: CityWorld
    private var random: SimRandom
    private let record: @MainActor (RiderOutcome) -> Void

    init(id: String, world: CityWorld, random: SimRandom, record: @escaping @MainActor (RiderOutcome) -> Void) {
        var random = random
        self.world = world
        let token = world.mint(.rider, id)
        let link = SimRiderLink(
            api: RiderHTTPAPI(transport: HTTPTransport(baseURL: world.server, token: token)),
            channel: RiderLiveChannel(baseURL: world.server, token: token, connector: world.connector))
        model = RiderModel(
            api: link, channel: link, cursors: InMemoryCursorStore(), clock: world.clock, now: world.timeline.now,
            random: random.split())
        self.random = random
        self.record = record
    }

    /// Requests trips one after another until the task is cancelled.
    func run() async {
        model.screenVisibilityChanged(true)
        await model.launch()
        while !Task.isCancelled {
            // Uniform between half and one and a half of the mean interval.
            let pause = world.configuration.requestInterval * (0.5 + random.unit())
            do { try await world.timeline.sleepUntil(world.timeline.now().addingTimeInterval(pause)) } catch { break }
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
        await model.requestRide(pickup: pickup, dropoff: dropoff, product: .economy)
        guard let tripID = model.trip?.id, model.trip?.state.isActive == true else {
            record(.requestFailed)
            return
        }
        record(.requested)
        var lastVersion = model.trip?.version ?? 0
        var sawDriver = false
        for await screen in model.screenChanges() {
            if let trip = model.trip, trip.id == tripID {
                if trip.version < lastVersion { record(.versionWentBack) }
                lastVersion = max(lastVersion, trip.version)
            }
            switch screen.phase {
            case .driverAssigned where !sawDriver:
                sawDriver = true
                if let eta = model.trip?.etaSeconds { record(.pickupETA(eta)) }
                if cancels { await model.cancel() }
            case .completed:
                record(.completed(screen.fare ?? model.trip?.fare))
                return
            case .cancelled:
                record(.cancelled)
                return
            case .noDriversFound:
                record(.noDriversFound)
                return
            default:
                break
            }
        }
    }
}
