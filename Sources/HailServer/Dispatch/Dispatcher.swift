import Foundation
import HailCore
import HailProtocol

/// Runs `DispatchMachine` against the live fleet: offers trips to the closest free drivers (by road ETA when
/// a road network is loaded) over their
/// streams, hands acceptances to the trip authority, and turns a 60 s search into noDriversFound.
public actor Dispatcher {
    private var machine: DispatchMachine
    private let authority: TripAuthority
    private let fleet: Fleet
    private let bus: any TripBus
    private let directory: any DriverDirectory
    private let time: ServerTime
    private let metrics: ServerMetrics
    private let routing: ServerRouting

    /// Creates the dispatcher.
    public init(
        configuration: DispatchMachine.Configuration = .init(),
        authority: TripAuthority,
        fleet: Fleet,
        bus: any TripBus,
        directory: any DriverDirectory,
        time: ServerTime,
        metrics: ServerMetrics,
        routing: ServerRouting = ServerRouting(network: nil)
    ) {
        machine = DispatchMachine(configuration: configuration)
        self.authority = authority
        self.fleet = fleet
        self.bus = bus
        self.directory = directory
        self.time = time
        self.metrics = metrics
        self.routing = routing
    }

    /// The live offer `driverID` holds, if any (re-sent when their stream reconnects).
    public func currentOffer(for driverID: String) -> DispatchMachine.Offer? {
        machine.offer(heldBy: driverID, now: time.now())
    }

    /// Trips being searched for.
    public var searchingTripIDs: [String] { machine.searches.keys.sorted() }

    /// Resumes the searches of trips that were searching when the process stopped.
    public func resume(_ records: [TripRecord]) async {
        for record in records where record.trip.state == .searching {
            machine.startSearch(tripID: record.trip.id, pickup: record.trip.pickup, now: time.now())
        }
        await evaluate()
    }

    /// Reacts to a committed trip change: searching trips are dispatched, others stop searching.
    public func tripChanged(_ record: TripRecord, intent: TripIntent, previousDriverID: String?) async {
        if record.trip.state == .searching {
            let excluded: Set<String> = previousDriverID.map { [$0] } ?? []
            machine.startSearch(
                tripID: record.trip.id, pickup: record.trip.pickup, now: time.now(), excluding: excluded)
            await evaluate()
        } else if let action = machine.stopSearch(tripID: record.trip.id) {
            await perform([action])
        }
    }

    /// The driver accepts their offer: checked against the offer, then decided by the trip rules.
    public func accept(
        tripID: String,
        driverID: String,
        idempotency: TripAuthority.Idempotency?
    ) async throws(APIError) -> TripAuthority.Outcome {
        // A retried accept that already won is answered from its stored response, offer or not.
        if let idempotency, let replayed = try await authority.replay(idempotency) { return replayed }
        guard machine.offer(heldBy: driverID, now: time.now())?.tripID == tripID else {
            throw APIError.invalidState(
                "there is no live offer of trip \(tripID) for you; it expired or went to another driver")
        }
        var eta: Int?
        if let position = await fleet.position(driverID: driverID), let record = try await authority.record(id: tripID)
        {
            let client = await fleet.client(driverID: driverID)
            eta = routing.estimator(for: client).seconds(from: position.coordinate, to: record.trip.pickup)
        }
        let outcome = try await authority.apply(
            .offerAccepted(await directory.card(for: driverID), etaSeconds: eta), tripID: tripID,
            by: .driver(driverID), idempotency: idempotency)
        metrics.offer("accepted")
        return outcome
    }

    /// The driver turns their offer down; the next candidate is offered at once.
    public func decline(tripID: String, driverID: String) async throws(APIError) {
        guard machine.declined(tripID: tripID, driverID: driverID) else {
            throw APIError.invalidState("there is no live offer of trip \(tripID) for you")
        }
        metrics.offer("declined")
        await evaluate()
    }

    /// Expires offers, gives up searches and makes new offers to drivers heard from in the last 60 s.
    public func evaluate() async {
        let now = time.now()
        var candidates: [String: [String]] = [:]
        // Every search may need a candidate: an offer that lapses in this very evaluation frees its trip.
        for search in machine.searches.values where search.offer.map({ $0.expiresAt <= now }) ?? true {
            let excluded = search.passed.union(machine.driversWithOffers)
            let hits = (try? await fleet.availableDrivers(near: search.pickup, excluding: excluded)) ?? []
            // The geo index makes the first cut; the nearest few are then ordered by road ETA.
            candidates[search.tripID] = routing.rankedByRoad(hits, to: search.pickup).map(\.driverID)
        }
        await perform(machine.evaluate(now: now, candidates: candidates))
    }

    /// Evaluates once a second until the task is cancelled.
    public func run() async {
        while !Task.isCancelled {
            do { try await time.sleep(for: .seconds(1)) } catch { return }
            // The index scan is housekeeping, once a second; candidates are checked for silence anyway.
            _ = try? await fleet.evictSilentDrivers()
            await evaluate()
        }
    }

    private func perform(_ actions: [DispatchMachine.Action]) async {
        for action in actions {
            switch action {
            case .offer(let offer):
                guard let record = try? await authority.record(id: offer.tripID) else { continue }
                let frame = DriverServerFrame.offer(TripOffer(trip: record.trip, expiresAt: offer.expiresAt))
                if let text = try? HailJSON.encodeString(frame) {
                    await bus.publish(BusMessage(kind: .essential, text: text), to: .driver(offer.driverID))
                }
                metrics.offer("sent")
            case .withdraw:
                metrics.offer("expired")
            case .giveUp(let tripID):
                _ = try? await authority.apply(.searchTimedOut, tripID: tripID, by: .system)
            }
        }
    }
}
