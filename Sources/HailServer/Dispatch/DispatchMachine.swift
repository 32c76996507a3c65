import Foundation
import HailCore

/// Who gets offered which searching trip, and when a search gives up. Pure: the runtime passes `now` and
/// the candidate drivers (nearest first) and carries out the actions it returns.
///
/// Rules: one offer at a time per trip and per driver; an offer lasts `offerTimeout` (15 s); a decline or
/// an expiry moves to the next candidate, never back to one who already passed; after `searchTimeout`
/// (60 s) with nobody accepting, the search gives up (the trip becomes noDriversFound).
public struct DispatchMachine: Sendable {
    /// The timeouts.
    public struct Configuration: Sendable, Hashable {
        /// How long a driver has to accept.
        public var offerTimeout: TimeInterval
        /// How long a trip searches before giving up.
        public var searchTimeout: TimeInterval

        /// Creates a configuration; the defaults are the brief's 15 s and 60 s.
        public init(offerTimeout: TimeInterval = 15, searchTimeout: TimeInterval = 60) {
            self.offerTimeout = offerTimeout
            self.searchTimeout = searchTimeout
        }
    }

    /// An offer out to a driver.
    public struct Offer: Sendable, Hashable {
        /// The trip offered.
        public var tripID: String
        /// The driver it is offered to.
        public var driverID: String
        /// When it lapses.
        public var expiresAt: Date

        /// Creates an offer.
        public init(tripID: String, driverID: String, expiresAt: Date) {
            self.tripID = tripID
            self.driverID = driverID
            self.expiresAt = expiresAt
        }
    }

    /// What the runtime must do.
    public enum Action: Sendable, Hashable {
        /// Send this offer to its driver.
        case offer(Offer)
        /// Tell the driver their offer is gone (expired, or the trip stopped searching).
        case withdraw(Offer)
        /// Nobody accepted in time: move the trip to noDriversFound.
        case giveUp(tripID: String)
    }

    /// A trip being searched for.
    public struct Search: Sendable, Hashable {
        /// The trip.
        public var tripID: String
        /// Where the rider waits.
        public var pickup: Coordinate
        /// When this search began.
        public var startedAt: Date
        /// The outstanding offer.
        public var offer: Offer?
        /// Drivers who declined, let an offer lapse, or gave this trip up.
        public var passed: Set<String>
    }

    /// The timeouts in force.
    public let configuration: Configuration
    /// Searches by trip id.
    public private(set) var searches: [String: Search] = [:]
    private var offerByDriver: [String: Offer] = [:]

    /// Creates a machine with no searches.
    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// Starts (or restarts, after a driver gave the trip up) the search for `tripID`.
    ///
    /// `since` is when the trip began searching, for a search resumed after a restart or adopted from a
    /// stopped node: the 60 s give-up counts from then, not from the resumption (never later than `now`).
    public mutating func startSearch(
        tripID: String, pickup: Coordinate, now: Date, since: Date? = nil, excluding: Set<String> = []
    ) {
        guard searches[tripID] == nil else { return }
        let startedAt = min(now, since ?? now)
        searches[tripID] = Search(tripID: tripID, pickup: pickup, startedAt: startedAt, offer: nil, passed: excluding)
    }

    /// Ends the search for `tripID` (accepted or cancelled); returns the outstanding offer to withdraw.
    public mutating func stopSearch(tripID: String) -> Action? {
        guard let search = searches.removeValue(forKey: tripID), let offer = search.offer else { return nil }
        offerByDriver[offer.driverID] = nil
        return .withdraw(offer)
    }

    /// The live offer held by `driverID` at `now`, if any.
    public func offer(heldBy driverID: String, now: Date) -> Offer? {
        guard let offer = offerByDriver[driverID], offer.expiresAt > now else { return nil }
        return offer
    }

    /// Drivers currently holding an offer; dispatch offers them nothing else.
    public var driversWithOffers: Set<String> { Set(offerByDriver.keys) }

    /// Records that `driverID` declined `tripID`; returns false when they held no such offer.
    @discardableResult
    public mutating func declined(tripID: String, driverID: String) -> Bool {
        guard var search = searches[tripID], search.offer?.driverID == driverID else { return false }
        search.offer = nil
        search.passed.insert(driverID)
        searches[tripID] = search
        offerByDriver[driverID] = nil
        return true
    }

    /// Takes back an offer the runtime could not place (the driver already holds another node's offer);
    /// the driver is not counted as having passed, and `evaluate` moves on to the next candidate.
    public mutating func retract(_ offer: Offer) {
        guard var search = searches[offer.tripID], search.offer == offer else { return }
        search.offer = nil
        searches[offer.tripID] = search
        offerByDriver[offer.driverID] = nil
    }

    /// Takes `offer`, which another node placed for a search this one now runs, as the search's outstanding offer:
    /// its answer or its lapse moves the search on as if this node had made it. Ignored when the search already
    /// has an offer out or the driver holds another.
    public mutating func adoptOffer(_ offer: Offer) {
        guard var search = searches[offer.tripID], search.offer == nil, offerByDriver[offer.driverID] == nil else {
            return
        }
        search.offer = offer
        searches[offer.tripID] = search
        offerByDriver[offer.driverID] = offer
    }

    /// The earliest time `evaluate` has something to do (an offer lapsing or a search giving up).
    public var nextDeadline: Date? {
        searches.values.flatMap { search -> [Date] in
            [search.startedAt.addingTimeInterval(configuration.searchTimeout)]
                + (search.offer.map { [$0.expiresAt] } ?? [])
        }.min()
    }

    /// Expires offers, gives up searches and makes new offers, given each trip's candidates nearest first.
    public mutating func evaluate(now: Date, candidates: [String: [String]]) -> [Action] {
        var actions: [Action] = []
        // Oldest search first, so a driver near two trips is offered the one that has waited longest.
        let order = searches.values.sorted { ($0.startedAt, $0.tripID) < ($1.startedAt, $1.tripID) }.map(\.tripID)
        for tripID in order {
            guard var search = searches[tripID] else { continue }
            if let offer = search.offer, offer.expiresAt <= now {
                search.offer = nil
                search.passed.insert(offer.driverID)
                offerByDriver[offer.driverID] = nil
                actions.append(.withdraw(offer))
            }
            if now.timeIntervalSince(search.startedAt) >= configuration.searchTimeout {
                if let offer = search.offer {
                    offerByDriver[offer.driverID] = nil
                    actions.append(.withdraw(offer))
                }
                searches[tripID] = nil
                actions.append(.giveUp(tripID: tripID))
                continue
            }
            if search.offer == nil,
                let driverID = candidates[tripID]?.first(where: {
                    !search.passed.contains($0) && offerByDriver[$0] == nil
                })
            {
                let offer = Offer(
                    tripID: tripID, driverID: driverID, expiresAt: now.addingTimeInterval(configuration.offerTimeout))
                search.offer = offer
                offerByDriver[driverID] = offer
                actions.append(.offer(offer))
            }
            searches[tripID] = search
        }
        return actions
    }
}
