import Foundation

/// Token buckets by key (a client address, a principal): pure value logic on a caller's `now`.
///
/// Memory stays bounded by the clients that are actually busy: once more than `trackedKeyLimit` keys are
/// held, every bucket that has refilled completely is forgotten (a full bucket is the same as none).
public struct RateLimiter<Key: Hashable & Sendable>: Sendable {
    /// The rate every key gets.
    public let rate: Rate
    /// Keys held before full buckets are swept out.
    public let trackedKeyLimit: Int
    private var buckets: [Key: TokenBucket] = [:]

    /// A limiter with no history.
    public init(rate: Rate, trackedKeyLimit: Int = 100_000) {
        self.rate = rate
        self.trackedKeyLimit = max(1, trackedKeyLimit)
    }

    /// Takes one token from `key`'s bucket at `now`, or says when to retry.
    public mutating func take(_ key: Key, now: Date) -> RateDecision {
        if buckets.count >= trackedKeyLimit, buckets[key] == nil { forgetFullBuckets(now: now) }
        var bucket = buckets[key] ?? TokenBucket(rate: rate, now: now)
        let decision = bucket.take(now: now)
        buckets[key] = bucket
        return decision
    }

    /// Drops the buckets that have refilled completely by `now`.
    public mutating func forgetFullBuckets(now: Date) {
        buckets = buckets.filter { !$0.value.isFull(now: now) }
    }

    /// How many keys are held (for tests and metrics).
    public var trackedKeys: Int { buckets.count }
}
