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
    /// The fencing token of each search lease this node holds, carried by the offers it places.
    private var fences: [String: Int64] = [:]
    /// Dispatch rounds run, for the trip store scan every `adoptionScanRounds`.
    private var rounds = 0

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
        leases: (any SearchLeases)? = nil,
        searchLease: TimeInterval = 5
    ) {
        machine = DispatchMachine(configuration: configuration)
        self.offers = offers
        self.leases = leases ?? MemorySearchLeases(now: { time.now() })
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

    /// The live offers `driverIDs` hold, read together (streams opening at once); none when the store fails.
    public func currentOffers(for driverIDs: [String]) async -> [String: DispatchMachine.Offer] {
        (try? await offers.offers(heldBy: driverIDs, now: time.now())) ?? [:]
    }

    /// Trips being searched for.
    public var searchingTripIDs: [String] { machine.searches.keys.sorted() }

    /// Resumes the searches of trips that were searching when the process stopped (those no other live
    /// node runs).
    public func resume(_ records: [TripRecord]) async {
        for record in records where record.trip.state == .searching {
            // A restart must not grant a fresh 60 s: under repeated restarts the search would never give up. The
            // lease keeps the search's deadline; only a search the leases lost counts from its last change.
            await startSearch(record, excluding: [], restart: false)
        }
        await evaluate()
    }

    /// Reacts to a committed trip change: searching trips are dispatched, others stop searching.
    public func tripChanged(_ record: TripRecord, previousDriverID: String?) async {
        if record.trip.state == .searching {
            if machine.searches[record.trip.id] == nil {
                await startSearch(record, excluding: previousDriverID.map { [$0] } ?? [], restart: true)
            }
            await evaluate()
        } else if let action = machine.stopSearch(tripID: record.trip.id) {
            await searchEnded(record.trip.id)
            await perform([action])
        }
    }

    /// Renews this node's search leases and adopts the searches nobody holds: those whose node stopped renewing,
    /// and, every `adoptionScanRounds` rounds, the trip store's searching trips the leases lost (Redis restarted
    /// empty, say).
    public func keepSearchesAlive() async {
        let now = time.now()
        for (tripID, search) in machine.searches.sorted(by: { $0.key < $1.key }) {
            // What this node has left of the search, for leases that lost its deadline.
            let left = machine.configuration.searchTimeout - now.timeIntervalSince(search.startedAt)
            // A lease lost (this node stalled past it and another adopted the search) ends the search here.
            switch await hold(tripID, request: SearchLeaseRequest(token: fences[tripID], searchTime: max(0, left))) {
            case .held(let lease): fences[tripID] = lease.token
            case .taken:
                // The offer this node left out stays: it is the trip's one live offer, and the adopter's now.
                fences[tripID] = nil
                _ = machine.stopSearch(tripID: tripID)
            case .unknown: break
            }
        }
        var unheld = (try? await leases.lapsed(limit: 50)) ?? []
        rounds += 1
        if rounds % Self.adoptionScanRounds == 0,
            let searching = try? await authority.searchingTripIDs().filter({ machine.searches[$0] == nil }),
            let lost = try? await leases.unheld(searching)
        {
            unheld += lost.filter { !unheld.contains($0) }
        }
        for tripID in unheld where machine.searches[tripID] == nil { await adopt(tripID) }
    }

    /// How many dispatch rounds (about a second each) between two scans of the trip store for searches no lease
    /// covers.
    public static let adoptionScanRounds = 5

    /// Takes the search of `tripID`, which nobody holds, if it is still searching.
    private func adopt(_ tripID: String) async {
        let left = await searchTimeLeft(tripID)
        guard case .held(let lease) = await hold(tripID, request: SearchLeaseRequest(searchTime: left.seconds)) else {
            return
        }
        guard let record = try? await authority.record(id: tripID), record.trip.state == .searching else {
            await searchEnded(tripID)
            return
        }
        fences[tripID] = lease.token
        machine.startSearch(tripID: tripID, pickup: record.trip.pickup, now: time.now(), since: since(lease, left))
    }

    private func startSearch(_ record: TripRecord, excluding: Set<String>, restart: Bool) async {
        let left =
            restart ? (seconds: machine.configuration.searchTimeout, since: nil) : await searchTimeLeft(record.trip.id)
        let outcome = await hold(
            record.trip.id, request: SearchLeaseRequest(searchTime: left.seconds, restart: restart))
        var since = left.since
        switch outcome {
        case .held(let lease):
            fences[record.trip.id] = lease.token
            since = self.since(lease, left)
        case .taken: return
        // Without the leases (Redis down) the search runs anyway: searching twice beats never.
        case .unknown: break
        }
        machine.startSearch(
            tripID: record.trip.id, pickup: record.trip.pickup, now: time.now(), since: since, excluding: excluding)
    }

    /// What became of asking for a lease.
    private enum LeaseOutcome {
        case held(SearchLease)
        /// Another node's lease is live.
        case taken
        /// The leases did not answer.
        case unknown
    }

    private func hold(_ tripID: String, request: SearchLeaseRequest) async -> LeaseOutcome {
        do {
            guard
                let lease = try await leases.hold(
                    tripID: tripID, owner: nodeID, duration: searchLease, request: request)
            else { return .taken }
            return .held(lease)
        } catch {
            return .unknown
        }
    }

    /// When the search began, on this node's clock: from what its lease has left on the leases' clock, or exactly
    /// when this node said when the lease took its own figure (a search the leases knew nothing of).
    private func since(_ lease: SearchLease, _ asked: (seconds: TimeInterval, since: Date?)) -> Date {
        if abs(lease.remaining - asked.seconds) < 0.002 { return asked.since ?? time.now() }
        return time.now().addingTimeInterval(lease.remaining - machine.configuration.searchTimeout)
    }

    /// What is left of the search of a trip for leases that hold no deadline for it (a restart of the only node, or
    /// the leases lost it): counted from the trip's last change. This is the one place a search's time depends on
    /// the clock of the node that committed that change; the lease carries the deadline on the leases' clock from
    /// then on.
    private func searchTimeLeft(_ tripID: String) async -> (seconds: TimeInterval, since: Date?) {
        let timeout = machine.configuration.searchTimeout
        let now = time.now()
        guard let changed = try? await authority.lastChangeAt(tripID: tripID) else { return (timeout, nil) }
        let since = min(now, changed)
        return (max(0, timeout - now.timeIntervalSince(since)), since)
    }

    private func searchEnded(_ tripID: String) async {
        fences[tripID] = nil
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
                switch action {
                case .offer(let offer):
                    let fence = fences[offer.tripID].map { SearchFence(tripID: offer.tripID, token: $0) }
                    switch try? await offers.place(offer, now: now, fence: fence) {
                    case .placed?: placed.append(action)
                    case .fenced?:
                        // Another node took the search while this one was not looking: it is theirs now.
                        _ = machine.stopSearch(tripID: offer.tripID)
                        fences[offer.tripID] = nil
                    case .tripOffered(let existing)?:
                        // The node that lost the search had it out to someone: that offer is this search's now.
                        machine.retract(offer)
                        machine.adoptOffer(existing)
                    case .driverBusy?, nil:
                        machine.retract(offer)
                        busy.insert(offer.driverID)
                        retried = true
                    }
                case .giveUp(let tripID):
                    // Only the lease's holder gives a search up; its deadline is the lease's, so a new holder
                    // gives up at the same time.
                    if await holdsLease(tripID) { placed.append(action) }
                case .withdraw: placed.append(action)
                }
            }
            await perform(placed, searching: searching)
            if !retried { return }
        }
    }

    /// Whether this node still holds `tripID`'s lease under the token it had (true when the leases do not answer:
    /// a search that cannot be confirmed is given up rather than left searching for ever).
    private func holdsLease(_ tripID: String) async -> Bool {
        guard let token = fences[tripID] else { return true }
        if case .taken = await hold(tripID, request: SearchLeaseRequest(token: token, searchTime: 0)) {
            fences[tripID] = nil
            return false
        }
        return true
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
