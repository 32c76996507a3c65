import Foundation

/// One token bucket: pure value logic on a caller's `now`, never the clock.
///
/// It starts full. Each allowed event takes one token; tokens refill at `rate.perSecond` up to
/// `rate.burst`. A rejected event takes nothing, so a client that keeps knocking while limited is let
/// in again as soon as the rate allows, not later. Time going backwards (a clock step) refills nothing.
public struct TokenBucket: Sendable, Hashable {
    /// The rate this bucket enforces.
    public let rate: Rate
    /// Tokens available at `updatedAt` (fractional while refilling).
    public private(set) var tokens: Double
    /// When `tokens` was last brought up to date.
    public private(set) var updatedAt: Date

    /// A full bucket as of `now`.
    public init(rate: Rate, now: Date) {
        self.rate = rate
        tokens = rate.burst
        updatedAt = now
    }

    /// Takes one token at `now` if there is one; otherwise says how long until there is.
    public mutating func take(now: Date) -> RateDecision {
        refill(now: now)
        if tokens >= 1 {
            tokens -= 1
            return .allow
        }
        let wait = (1 - tokens) / rate.perSecond
        return .reject(retryAfterSeconds: max(1, Int(wait.rounded(.up))))
    }

    /// Takes one token for a message on a stream: nil when it may be read, else the `messagesPerConnection`
    /// refusal to close the stream with.
    public mutating func takeMessage(now: Date) -> RateLimitRefusal? {
        guard case .reject(let seconds) = take(now: now) else { return nil }
        return RateLimitRefusal(limit: "messagesPerConnection", rate: rate, retryAfterSeconds: seconds)
    }

    /// True when, at `now`, the bucket has refilled completely (it then equals a fresh one and may be forgotten).
    public func isFull(now: Date) -> Bool {
        var copy = self
        copy.refill(now: now)
        return copy.tokens >= rate.burst
    }

    private mutating func refill(now: Date) {
        let elapsed = now.timeIntervalSince(updatedAt)
        // The server's clock follows the wall clock, so NTP may step it back: the bucket counts from the new
        // time rather than refill nothing until the clock is back where it was.
        guard elapsed > 0 else {
            updatedAt = min(updatedAt, now)
            return
        }
        tokens = min(rate.burst, tokens + elapsed * rate.perSecond)
        updatedAt = now
    }
}
