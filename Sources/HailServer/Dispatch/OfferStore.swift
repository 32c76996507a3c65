import Foundation
import Synchronization

/// Where live offers are kept, one per driver, so an accept or a decline can reach any node.
///
/// Embedded: `MemoryOfferStore`; scaled: `RedisOfferStore` (HailScale), shared by every node. The store
/// decides which accept gets to try; the trip's version check in the trip store still decides the trip.
///
/// An offer's life is a duration on the store's clock (the placing node's `expiresAt - now`), never a date one
/// node wrote and another compares: an offer stays claimable for its whole life from any node, whatever their
/// clocks say. The `now` a node passes dates what the store answers on that node's clock.
public protocol OfferStore: Sendable {
    /// Whether every node sees this state or only this process (`ServerServices.make` refuses a mix).
    var scope: StateScope { get }

    /// Records `offer` unless its driver already holds another live one (made by this node or another), the trip
    /// is out to another driver (one live offer per trip, whichever node placed it), or `fence` is no longer the
    /// current token of the trip's search lease (the node lost the search). The offer lapses by itself
    /// `offer.expiresAt - now` from now.
    func place(_ offer: DispatchMachine.Offer, now: Date, fence: SearchFence?) async throws -> OfferPlacement
    /// The live offer `driverID` holds, if any (not one that is being accepted), its `expiresAt` on the
    /// caller's clock (`now` plus what is left of it).
    func offer(heldBy driverID: String, now: Date) async throws -> DispatchMachine.Offer?
    /// The live offers `driverIDs` hold (those without one are absent): many streams opening at once ask in one
    /// round trip.
    func offers(heldBy driverIDs: [String], now: Date) async throws -> [String: DispatchMachine.Offer]
    /// What became of `offer` (the node that made it asks, since the driver may answer on another node).
    func status(of offer: DispatchMachine.Offer, now: Date) async throws -> OfferStatus
    /// Takes the driver's live offer of `tripID` for an answer: true for exactly one caller, however many
    /// nodes try at once. A claimed offer is no longer live; it stays as `.answering` until `remove`, or
    /// for `answerWindow` at most if the claiming node dies before it can.
    func claim(tripID: String, driverID: String, now: Date) async throws -> Bool
    /// Removes the driver's offer of `tripID`, live or claimed; a different offer they hold stays.
    func remove(tripID: String, driverID: String) async throws
}

extension OfferStore {
    /// One `offer(heldBy:now:)` after another, for stores whose reads cost no round trip.
    public func offers(heldBy driverIDs: [String], now: Date) async throws -> [String: DispatchMachine.Offer] {
        var offers: [String: DispatchMachine.Offer] = [:]
        for driverID in driverIDs { offers[driverID] = try await offer(heldBy: driverID, now: now) }
        return offers
    }
}

/// What came of placing an offer.
public enum OfferPlacement: Sendable, Hashable {
    /// Recorded: the driver may answer it on any node.
    case placed
    /// The driver holds another live offer.
    case driverBusy
    /// The trip is out to another driver (placed by a node that lost the search, say): this one, its expiry on
    /// the caller's clock.
    case tripOffered(DispatchMachine.Offer)
    /// The node no longer holds the trip's search lease: another node runs the search.
    case fenced
}

extension OfferStore {
    /// Places an offer whose search no lease guards (a test, or a caller without one); true when recorded.
    public func place(_ offer: DispatchMachine.Offer, now: Date) async throws -> Bool {
        try await place(offer, now: now, fence: nil) == .placed
    }
}

/// What became of an offer, as its maker sees it.
public enum OfferStatus: Sendable, Hashable {
    /// Still out to the driver.
    case outstanding
    /// The driver answered and a node is applying the answer.
    case answering
    /// Declined, withdrawn, applied, or lapsed.
    case gone
}

extension OfferStore {
    /// How long a claimed offer may stay unanswered before it counts as gone (a node died mid-accept).
    public static var answerWindow: TimeInterval { 30 }
}

/// The embedded offer store: a dictionary behind a lock, for one process.
public final class MemoryOfferStore: OfferStore {
    private struct Entry {
        var offer: DispatchMachine.Offer
        /// Set once claimed, with the time the claim lapses.
        var answeringUntil: Date?
    }

    private let entries = Mutex<[String: Entry]>([:])
    /// Which driver each trip was last offered to (taken only inside `entries`' lock).
    private let driverByTrip = Mutex<[String: String]>([:])
    private let leases: MemorySearchLeases?

    /// Creates an empty store; with `leases`, an offer whose fence is stale is refused.
    public init(leases: MemorySearchLeases? = nil) { self.leases = leases }

    /// Records the offer unless the driver holds another live or claimed one, or its fence is stale.
    public func place(_ offer: DispatchMachine.Offer, now: Date, fence: SearchFence?) -> OfferPlacement {
        if let fence, let leases, !leases.isCurrent(fence) { return .fenced }
        return entries.withLock { entries in
            if let other = driverByTrip.withLock({ $0[offer.tripID] }), other != offer.driverID,
                let entry = entries[other], entry.offer.tripID == offer.tripID, Self.isPresent(entry, now: now)
            {
                return .tripOffered(entry.offer)
            }
            if let entry = entries[offer.driverID], Self.isPresent(entry, now: now) { return .driverBusy }
            entries[offer.driverID] = Entry(offer: offer, answeringUntil: nil)
            driverByTrip.withLock { $0[offer.tripID] = offer.driverID }
            return .placed
        }
    }

    /// The driver's live, unclaimed offer.
    public func offer(heldBy driverID: String, now: Date) -> DispatchMachine.Offer? {
        entries.withLock { entries in
            guard let entry = entries[driverID], entry.answeringUntil == nil, entry.offer.expiresAt > now else {
                return nil
            }
            return entry.offer
        }
    }

    /// Outstanding, answering or gone.
    public func status(of offer: DispatchMachine.Offer, now: Date) -> OfferStatus {
        entries.withLock { entries in
            guard let entry = entries[offer.driverID], entry.offer.tripID == offer.tripID,
                Self.isPresent(entry, now: now)
            else { return .gone }
            return entry.answeringUntil == nil ? .outstanding : .answering
        }
    }

    /// Claims the live offer of `tripID`; exactly one caller wins.
    public func claim(tripID: String, driverID: String, now: Date) -> Bool {
        entries.withLock { entries in
            guard var entry = entries[driverID], entry.offer.tripID == tripID, entry.answeringUntil == nil,
                entry.offer.expiresAt > now
            else { return false }
            entry.answeringUntil = now.addingTimeInterval(Self.answerWindow)
            entries[driverID] = entry
            return true
        }
    }

    /// Removes the driver's offer of `tripID`.
    public func remove(tripID: String, driverID: String) {
        entries.withLock { entries in
            if entries[driverID]?.offer.tripID == tripID { entries[driverID] = nil }
            driverByTrip.withLock { if $0[tripID] == driverID { $0[tripID] = nil } }
        }
    }

    private static func isPresent(_ entry: Entry, now: Date) -> Bool {
        if let until = entry.answeringUntil { return until > now }
        return entry.offer.expiresAt > now
    }
}

extension OfferStore {
    /// This process's own, unless the conformer says otherwise.
    public var scope: StateScope { .process }
}
