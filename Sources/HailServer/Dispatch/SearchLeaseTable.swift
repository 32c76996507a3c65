import Foundation

/// The rules of search leases, as a value on one clock: `MemorySearchLeases` keeps one behind a lock on the
/// process's clock, and `RedisSearchLeases`'s scripts carry out the same rules on Redis's clock (`TIME`).
///
/// A lease is live until `until`; another owner may take it only once it lapsed. Each change of hands (and each
/// take by a node that did not present the current token) draws the next fencing token. The search's deadline
/// stays with the trip while it changes hands, so an adopted search gives up when its first node would have.
public struct SearchLeaseTable: Sendable, Hashable {
    /// One trip's lease.
    public struct Entry: Sendable, Hashable {
        /// The node holding it.
        public var owner: String
        /// Its fencing token.
        public var token: Int64
        /// When it lapses unless renewed.
        public var until: Date
        /// When the search gives up.
        public var deadline: Date
    }

    /// Leases by trip id.
    public private(set) var entries: [String: Entry] = [:]
    /// The last fencing token drawn.
    public private(set) var lastToken: Int64 = 0

    /// An empty table.
    public init() {}

    /// Takes or renews `tripID`'s lease for `owner` until `now + duration`; nil when another owner's lease is live.
    public mutating func hold(
        tripID: String, owner: String, duration: TimeInterval, request: SearchLeaseRequest, now: Date
    ) -> SearchLease? {
        let current = entries[tripID]
        if let current, current.owner != owner, current.until > now { return nil }
        let token: Int64
        if let current, current.owner == owner, current.token == request.token {
            token = current.token
        } else {
            lastToken += 1
            token = lastToken
        }
        var deadline = now.addingTimeInterval(request.searchTime)
        if let current, !request.restart { deadline = current.deadline }
        entries[tripID] = Entry(owner: owner, token: token, until: now.addingTimeInterval(duration), deadline: deadline)
        return SearchLease(token: token, remaining: deadline.timeIntervalSince(now))
    }

    /// Trips whose lease lapsed by `now`, the earliest first (ties by id), at most `limit`.
    public func lapsed(now: Date, limit: Int) -> [String] {
        entries.filter { $0.value.until <= now }.sorted { ($0.value.until, $0.key) < ($1.value.until, $1.key) }
            .prefix(max(0, limit)).map(\.key)
    }

    /// Those of `tripIDs` with no live lease at `now`, in the order given.
    public func unheld(_ tripIDs: [String], now: Date) -> [String] {
        tripIDs.filter { entries[$0].map { $0.until <= now } ?? true }
    }

    /// Ends `owner`'s lease on `tripID`; another owner's stays.
    public mutating func release(tripID: String, owner: String) {
        if entries[tripID]?.owner == owner { entries[tripID] = nil }
    }

    /// The current fencing token of `tripID`'s lease, nil when there is none.
    public func token(of tripID: String) -> Int64? { entries[tripID]?.token }
}
