import Foundation
import Synchronization

/// Which node runs the search for a trip. A node holds a lease on each search it runs and renews it every
/// dispatch round; when a node dies its leases lapse and another node adopts those searches, so a rider
/// is not left "finding a driver" because the node that took the request is gone.
///
/// Every time in a lease is on the store's own clock, never a node's: a node says how long (a lease of 5 s, a
/// search of 60 s) and the store says how much is left, so nodes whose clocks disagree neither steal live
/// leases nor lose their own. Each change of hands raises the lease's fencing token, which the holder's
/// writes carry (`OfferStore.place`), so a node that stalled past its lease cannot act on a search it lost.
///
/// Embedded: `MemorySearchLeases` (one process holds every search); scaled: `RedisSearchLeases` (HailScale).
public protocol SearchLeases: Sendable {
    /// Whether every node sees this state or only this process (`ServerServices.make` refuses a mix).
    var scope: StateScope { get }

    /// Takes or renews the lease on `tripID`'s search for `owner` for `duration` seconds of the store's clock; nil
    /// when another owner holds a lease that has not lapsed. `request` says how long the search may run when the
    /// store has no deadline for it, and whether to start a new one whatever it has.
    func hold(tripID: String, owner: String, duration: TimeInterval, request: SearchLeaseRequest) async throws
        -> SearchLease?
    /// Searches whose lease lapsed (their node stopped renewing), at most `limit`, the earliest lapsed first.
    func lapsed(limit: Int) async throws -> [String]
    /// Those of `tripIDs` that nobody holds a live lease on: lapsed, or never recorded (the store lost them).
    func unheld(_ tripIDs: [String]) async throws -> [String]
    /// Ends `owner`'s lease on `tripID` (the search ended); another owner's lease stays.
    func release(tripID: String, owner: String) async throws
}

/// What a node asks of a lease besides its duration.
public struct SearchLeaseRequest: Sendable, Hashable {
    /// The fencing token the node last held, nil when it holds none: the same token back means nobody took the
    /// search in between.
    public var token: Int64?
    /// How long the search may run from now, used when the store has no deadline for it (or `restart`).
    public var searchTime: TimeInterval
    /// A new search (the trip has just become searching): its deadline is `searchTime` from now, whatever the
    /// store had.
    public var restart: Bool

    /// A request; see the properties.
    public init(token: Int64? = nil, searchTime: TimeInterval, restart: Bool = false) {
        self.token = token
        self.searchTime = searchTime
        self.restart = restart
    }
}

/// A lease granted: its fencing token and how long its search has left.
public struct SearchLease: Sendable, Hashable {
    /// Raised each time the search changes hands; the holder's writes carry it and are refused once it is stale.
    public var token: Int64
    /// Seconds of the store's clock until the search gives up (zero or less: it is due).
    public var remaining: TimeInterval

    /// A lease.
    public init(token: Int64, remaining: TimeInterval) {
        self.token = token
        self.remaining = remaining
    }
}

/// A node's proof that it holds a search's lease, carried by the writes the lease guards.
public struct SearchFence: Sendable, Hashable {
    /// The trip searched for.
    public var tripID: String
    /// The lease's fencing token as the node last held it.
    public var token: Int64

    /// A fence.
    public init(tripID: String, token: Int64) {
        self.tripID = tripID
        self.token = token
    }
}

/// The embedded leases: a `SearchLeaseTable` behind a lock, on the process's own clock.
public final class MemorySearchLeases: SearchLeases {
    private let table = Mutex(SearchLeaseTable())
    private let now: @Sendable () -> Date

    /// Creates an empty set of leases on the clock `now` reads.
    public init(now: @escaping @Sendable () -> Date = { Date() }) { self.now = now }

    /// Takes or renews the lease unless another owner's is live.
    public func hold(tripID: String, owner: String, duration: TimeInterval, request: SearchLeaseRequest)
        -> SearchLease?
    {
        let now = now()
        return table.withLock { $0.hold(tripID: tripID, owner: owner, duration: duration, request: request, now: now) }
    }

    /// Lapsed leases, earliest first.
    public func lapsed(limit: Int) -> [String] {
        let now = now()
        return table.withLock { $0.lapsed(now: now, limit: limit) }
    }

    /// Trips with no live lease.
    public func unheld(_ tripIDs: [String]) -> [String] {
        let now = now()
        return table.withLock { $0.unheld(tripIDs, now: now) }
    }

    /// Ends the lease if `owner` holds it.
    public func release(tripID: String, owner: String) {
        table.withLock { $0.release(tripID: tripID, owner: owner) }
    }

    /// Whether `fence` is the lease's current token (the embedded offer store asks).
    public func isCurrent(_ fence: SearchFence) -> Bool {
        table.withLock { $0.token(of: fence.tripID) == fence.token }
    }
}

extension SearchLeases {
    /// This process's own, unless the conformer says otherwise.
    public var scope: StateScope { .process }
}
