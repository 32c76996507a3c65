import Foundation
import Synchronization

/// Which node runs the search for a trip. A node holds a lease on each search it runs and renews it every
/// dispatch round; when a node dies its leases lapse and another node adopts those searches, so a rider
/// is not left "finding a driver" because the node that took the request is gone.
///
/// Embedded: `MemorySearchLeases` (one process holds every search); scaled: `RedisSearchLeases` (HailScale).
public protocol SearchLeases: Sendable {
    /// Takes or renews the lease on `tripID`'s search for `owner` until `until`; false when another owner
    /// holds a lease that has not lapsed at `now`.
    func hold(tripID: String, owner: String, until: Date, now: Date) async throws -> Bool
    /// Searches whose lease lapsed before `now` (their node stopped renewing), at most `limit`.
    func lapsed(now: Date, limit: Int) async throws -> [String]
    /// Ends `owner`'s lease on `tripID` (the search ended); another owner's lease stays.
    func release(tripID: String, owner: String) async throws
}

/// The embedded leases: a dictionary behind a lock.
public final class MemorySearchLeases: SearchLeases {
    private let leases = Mutex<[String: (owner: String, until: Date)]>([:])

    /// Creates an empty set of leases.
    public init() {}

    /// Takes or renews the lease unless another owner's is live.
    public func hold(tripID: String, owner: String, until: Date, now: Date) -> Bool {
        leases.withLock { leases in
            if let lease = leases[tripID], lease.owner != owner, lease.until > now { return false }
            leases[tripID] = (owner, until)
            return true
        }
    }

    /// Lapsed leases, earliest first.
    public func lapsed(now: Date, limit: Int) -> [String] {
        leases.withLock { leases in
            Array(leases.filter { $0.value.until <= now }.sorted { $0.value.until < $1.value.until }.prefix(limit))
                .map(\.key)
        }
    }

    /// Ends the lease if `owner` holds it.
    public func release(tripID: String, owner: String) {
        leases.withLock { leases in
            if leases[tripID]?.owner == owner { leases[tripID] = nil }
        }
    }
}
