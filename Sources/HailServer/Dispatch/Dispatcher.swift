import Foundation
import HailCore
import HailProtocol
import HailTime

/// Runs `DispatchMachine` against the live fleet: offers trips to the closest free drivers (by road ETA when
/// a road network is loaded) over their
/// streams, hands acceptances to the trip authority, and turns a 60 s search into noDriversFound.
///
/// A search runs on the node that committed the trip's change into searching; its offers are kept in the
/// `OfferStore`, so the driver may answer on any node. The node searching learns the answer from the
/// store (and the trip store) on its next evaluation, at most a second later.
public actor Dispatcher {
    private var machine: DispatchMachine
    private let offers: any OfferStore
    private let leases: any SearchLeases
    private let searchLease: TimeInterval
    /// This dispatcher's name on its search leases.
    public nonisolated let nodeID = "node-" + UUID().uuidString.lowercased()
    private let authority: TripAuthority
    private let fleet: Fleet
    private let bus: any TripBus
    private let directory: any DriverDirectory
    private let time: Timeline
    private let metrics: ServerMetrics
    private let routing: ServerRouting

    /// Creates the dispatcher.
    public init(
        configuration: DispatchMachine.Configuration = .init(),
        authority: TripAuthority,
        fleet: Fleet,
        bus: any TripBus,
        directory: any DriverDirectory,
        time: Timeline,
        metrics: ServerMetrics,
        routing: ServerRouting = ServerRouting(network: nil),
        offers: any OfferStore = MemoryOfferStore(),
        leases: any SearchLeases = MemorySearchLeases(),
        searchLease: TimeInterval = 5
    ) {
        machine = DispatchMachine(configuration: configuration)
        self.offers = offers
        self.leases = leases
        self.searchLease = searchLease
        self.authority = authority
        self.fleet = fleet
        self.bus = bus
        self.directory = directory
        self.time = time
        self.metrics = metrics
        self.routing = routing
    }

    /// The live offer `driverID` holds, if any (re-sent when their stream reconnects).
    public func currentOffer(for driverID: String) async -> DispatchMachine.Offer? {
        try? await offers.offer(heldBy: driverID, now: time.now())
    }

    /// Trips being searched for.
    public var searchingTripIDs: [String] { machine.searches.keys.sorted() }

    /// Resumes the searches of trips that were searching when the process stopped (those no other live
    /// node runs).
    public func resume(_ records: [TripRecord]) async {
        for record in records where record.trip.state == .searching {
            // A restart must not grant a fresh 60 s: under repeated restarts the search would never give up.
            await startSearch(record, excluding: [], since: try? await authority.lastChangeAt(tripID: record.trip.id))
        }
        await evaluate()
    }

    /// Reacts to a committed trip change: searching trips are dispatched, others stop searching.
    public func tripChanged(_ record: TripRecord, previousDriverID: String?) async {
        if record.trip.state == .searching {
            await startSearch(record, excluding: previousDriverID.map { [$0] } ?? [])
            await evaluate()
        } else if let action = machine.stopSearch(tripID: record.trip.id) {
            await searchEnded(record.trip.id)
            await perform([action])
        }
    }

    /// Renews this node's search leases and adopts the searches of nodes that stopped renewing theirs.
    public func keepSearchesAlive() async {
        let now = time.now()
        for tripID in machine.searches.keys.sorted() {
            // A lease lost (this node stalled past it and another adopted the search) ends the search here.
            if (try? await leases.hold(tripID: tripID, owner: nodeID, until: now + searchLease, now: now)) == false,
                let action = machine.stopSearch(tripID: tripID)
            {
                await perform([action])
            }
        }
        guard let lapsed = try? await leases.lapsed(now: now, limit: 50) else { return }
        for tripID in lapsed where machine.searches[tripID] == nil {
            guard (try? await leases.hold(tripID: tripID, owner: nodeID, until: now + searchLease, now: now)) == true
            else { continue }
            guard let record = try? await authority.record(id: tripID), record.trip.state == .searching else {
                await searchEnded(tripID)
                continue
            }
            let since = try? await authority.lastChangeAt(tripID: tripID)
            machine.startSearch(tripID: tripID, pickup: record.trip.pickup, now: now, since: since)
        }
    }

    private func startSearch(_ record: TripRecord, excluding: Set<String>, since: Date? = nil) async {
        let now = time.now()
        // Without the leases (Redis down) the search runs anyway: searching twice beats never.
        let held =
            (try? await leases.hold(tripID: record.trip.id, owner: nodeID, until: now + searchLease, now: now)) ?? true
        guard held else { return }
        machine.startSearch(
            tripID: record.trip.id, pickup: record.trip.pickup, now: now, since: since, excluding: excluding)
    }

    private func searchEnded(_ tripID: String) async {
        try? await leases.release(tripID: tripID, owner: nodeID)
    }

    /// The driver accepts their offer: checked against the offer, then decided by the trip rules.
    public func accept(
        tripID: String,
        driverID: String,
        idempotency: TripAuthority.Idempotency?
    ) async throws(APIError) -> TripAuthority.Outcome {
        // A retried accept that already won is answered from its stored response, offer or not.
        if let idempotency, let replayed = try await authority.replay(idempotency) { return replayed }
        // Exactly one accept of an offer gets past here, on whichever node; the trip's version decides the rest.
        guard try await claim(tripID: tripID, driverID: driverID) else {
            throw APIError.invalidState(
                "there is no live offer of trip \(tripID) for you; it expired or went to another driver")
        }
        do {
            let outcome = try await applyAccept(tripID: tripID, driverID: driverID, idempotency: idempotency)
            try? await offers.remove(tripID: tripID, driverID: driverID)
            return outcome
        } catch {
            try? await offers.remove(tripID: tripID, driverID: driverID)
            throw error
        }
    }

    private func claim(tripID: String, driverID: String) async throws(APIError) -> Bool {
        do {
            return try await offers.claim(tripID: tripID, driverID: driverID, now: time.now())
        } catch {
            throw APIError(code: .unavailable, message: "offers are unavailable: \(error)")
        }
    }

    private func applyAccept(
        tripID: String, driverID: String, idempotency: TripAuthority.Idempotency?
    ) async throws(APIError) -> TripAuthority.Outcome {
        var eta: Int?
        if let position = await fleet.position(driverID: driverID), let record = try await authority.record(id: tripID)
        {
            let client = await fleet.client(driverID: driverID)
            eta = routing.estimator(for: .driver(driverID, client: client, at: position.coordinate))
                .seconds(from: position.coordinate, to: record.trip.pickup)
        }
        let outcome = try await authority.apply(
            .offerAccepted(await directory.card(for: driverID), etaSeconds: eta), tripID: tripID,
            by: .driver(driverID), idempotency: idempotency)
        metrics.offer("accepted")
        return outcome
    }

    /// The driver turns their offer down; the next candidate is offered at once.
    public func decline(tripID: String, driverID: String) async throws(APIError) {
        guard try await claim(tripID: tripID, driverID: driverID) else {
            throw APIError.invalidState("there is no live offer of trip \(tripID) for you")
        }
        try? await offers.remove(tripID: tripID, driverID: driverID)
        metrics.offer("declined")
        // When the search runs here, the next candidate is offered at once; otherwise its node sees the
        // offer gone on its next evaluation.
        if machine.declined(tripID: tripID, driverID: driverID) { await evaluate() }
    }

    /// Expires offers, gives up searches and makes new offers to drivers heard from in the last 60 s.
    public func evaluate() async {
        let now = time.now()
        await reconcileAnswersFromElsewhere(now: now)
        var candidates: [String: [String]] = [:]
        // Every search may need a candidate: an offer that lapses in this very evaluation frees its trip.
        for search in machine.searches.values where search.offer.map({ $0.expiresAt <= now }) ?? true {
            let excluded = search.passed.union(machine.driversWithOffers)
            let hits = (try? await fleet.availableDrivers(near: search.pickup, excluding: excluded)) ?? []
            // The geo index makes the first cut; the nearest few are then ordered by road ETA.
            candidates[search.tripID] = routing.rankedByRoad(hits, to: search.pickup).map(\.driverID)
        }
        // A driver already holding another node's offer is skipped for this round, and the trip goes to
        // its next candidate at once.
        var busy: Set<String> = []
        // A search given up leaves the machine; kept here so that a give-up whose write fails can be resumed.
        let searching = machine.searches
        for _ in 0..<4 {
            let round = candidates.mapValues { $0.filter { !busy.contains($0) } }
            var placed: [DispatchMachine.Action] = []
            var retried = false
            for action in machine.evaluate(now: now, candidates: round) {
                if case .offer(let offer) = action, (try? await offers.place(offer, now: now)) != true {
                    machine.retract(offer)
                    busy.insert(offer.driverID)
                    retried = true
                } else {
                    placed.append(action)
                }
            }
            await perform(placed, searching: searching)
            if !retried { return }
        }
    }

    /// Offers this node made that the driver answered on another node: a decline frees the trip for the
    /// next candidate; an accept (or a cancel) shows in the trip's state, which ends the search.
    private func reconcileAnswersFromElsewhere(now: Date) async {
        for search in machine.searches.values {
            guard let offer = search.offer, offer.expiresAt > now,
                let status = try? await offers.status(of: offer, now: now), status == .gone
            else { continue }
            guard let record = try? await authority.record(id: search.tripID) else { continue }
            if record.trip.state == .searching {
                machine.declined(tripID: offer.tripID, driverID: offer.driverID)
            } else {
                _ = machine.stopSearch(tripID: search.tripID)
                await searchEnded(search.tripID)
            }
        }
    }

    /// Evaluates once a second until the task is cancelled.
    public func run() async {
        while !Task.isCancelled {
            do { try await time.sleep(for: .seconds(1)) } catch { return }
            // The index scan is housekeeping, once a second; candidates are checked for silence anyway.
            _ = try? await fleet.evictSilentDrivers()
            await keepSearchesAlive()
            await evaluate()
        }
    }

    private func perform(
        _ actions: [DispatchMachine.Action], searching: [String: DispatchMachine.Search] = [:]
    ) async {
        for action in actions {
            switch action {
            case .offer(let offer):
                guard let record = try? await authority.record(id: offer.tripID) else { continue }
                // Changed on another node (cancelled, say): this node's observer never saw it.
                guard record.trip.state == .searching else {
                    _ = machine.stopSearch(tripID: offer.tripID)
                    await searchEnded(offer.tripID)
                    try? await offers.remove(tripID: offer.tripID, driverID: offer.driverID)
                    continue
                }
                let frame = DriverServerFrame.offer(TripOffer(trip: record.trip, expiresAt: offer.expiresAt))
                if let text = try? HailJSON.encodeString(frame) {
                    await bus.publish(BusMessage(kind: .essential, text: text), to: .driver(offer.driverID))
                }
                metrics.offer("sent")
            case .withdraw(let offer):
                try? await offers.remove(tripID: offer.tripID, driverID: offer.driverID)
                metrics.offer("expired")
                // The driver's screen drops it now, not at its expiry by the phone's clock (a search that ended,
                // or a lapse the phone's clock has not reached); a driver who took the trip has no offer left.
                if let text = try? HailJSON.encodeString(DriverServerFrame.offerWithdrawn(tripID: offer.tripID)) {
                    await bus.publish(BusMessage(kind: .essential, text: text), to: .driver(offer.driverID))
                }
            case .giveUp(let tripID):
                await giveUp(tripID, search: searching[tripID])
            }
        }
    }

    /// Commits the search's outcome, and only then lets its lease go. A write that fails (storage unavailable)
    /// keeps the search, and its lease, on this node: the next evaluation gives up again, so a trip never stays
    /// searching with no search and no lease anywhere. A trip that stopped searching meanwhile (accepted,
    /// cancelled, given up by another node) needs no write: its search is over either way.
    private func giveUp(_ tripID: String, search: DispatchMachine.Search?) async {
        do throws(APIError) {
            _ = try await authority.apply(.searchTimedOut, tripID: tripID, by: .system)
        } catch  where error.code == .unavailable || error.code == .internal {
            if let search {
                machine.startSearch(
                    tripID: tripID, pickup: search.pickup, now: time.now(), since: search.startedAt,
                    excluding: search.passed)
                return
            }
        } catch {}
        await searchEnded(tripID)
    }
}
