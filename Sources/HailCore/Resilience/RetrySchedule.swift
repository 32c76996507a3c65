import Foundation

/// A fixed list of waits between attempts, for retries that must finish while the user watches.
///
/// The rider's "Request" tap uses `riderRequest`: three attempts, waiting 1 s then 2 s, all with the same
/// idempotency key. Unlike `Backoff` there is no jitter: three attempts from one phone do not form a herd,
/// and the rider should see a predictable "Could not request a ride" after about three seconds.
public struct RetrySchedule: Codable, Sendable, Hashable {
    /// The wait before each retry, in seconds; `waits[0]` follows the first failure.
    public var waits: [TimeInterval]

    /// Creates a schedule; negative or non-finite waits are read as zero.
    public init(waits: [TimeInterval]) {
        self.waits = waits.map { $0.isFinite && $0 > 0 ? $0 : 0 }
    }

    /// The rider's trip request: 3 attempts, waiting 1 s then 2 s.
    public static let riderRequest = RetrySchedule(waits: [1, 2])

    /// How many attempts the schedule allows in total, the first one included.
    public var maxAttempts: Int { waits.count + 1 }

    /// The wait after attempt `attempt` failed (1 is the first attempt), or nil when it was the last one.
    public func delay(afterAttempt attempt: Int) -> TimeInterval? {
        guard attempt >= 1, attempt <= waits.count else { return nil }
        return waits[attempt - 1]
    }

    /// The longest a server's `Retry-After` stretches one wait: the rider is watching.
    public static let longestRetryAfter: TimeInterval = 5

    /// The wait after attempt `attempt` failed with the server's `Retry-After: retryAfter` seconds (nil: none):
    /// the schedule's wait or the server's, whichever is longer, the server's capped at `longestRetryAfter`; nil
    /// when it was the last attempt.
    public func delay(afterAttempt attempt: Int, retryAfter: TimeInterval?) -> TimeInterval? {
        guard let wait = delay(afterAttempt: attempt) else { return nil }
        guard let retryAfter, retryAfter.isFinite, retryAfter > 0 else { return wait }
        return max(wait, min(retryAfter, Self.longestRetryAfter))
    }
}
