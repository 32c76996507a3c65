import Foundation

/// Exponential backoff with jitter and a cap: how long to wait before the next attempt after a failure.
///
/// The ceiling after attempt `n` (1 is the first failure) is `min(cap, base * multiplier^(n-1))`: with the
/// defaults 1, 2, 4, 8, 16, 30, 30, ... seconds. Jitter then draws the actual delay from the injected
/// generator, so a fleet of phones that lost the same server does not come back in lockstep.
///
/// The default is equal jitter, `ceiling/2 + random(0...ceiling/2)`. Full jitter (`random(0...ceiling)`)
/// spreads a thundering herd slightly better, but it may draw a delay near zero several times in a row,
/// and a driver's phone in a dead zone would then wake its radio in a tight loop. Equal jitter keeps
/// half of the exponential wait as a floor and still spreads the fleet over the other half.
public struct Backoff: Codable, Sendable, Hashable {
    /// How the delay is drawn below the exponential ceiling.
    public enum Jitter: String, Codable, Sendable, Hashable, CaseIterable {
        /// Exactly the ceiling; for tests and tools, never for a fleet.
        case none
        /// Uniform in `0...ceiling`.
        case full
        /// Half the ceiling plus a uniform draw in `0...ceiling/2`.
        case equal
    }

    /// The ceiling after the first failure, in seconds.
    public var base: TimeInterval
    /// The growth factor per further failure.
    public var multiplier: Double
    /// The largest delay ever returned, in seconds.
    public var cap: TimeInterval
    /// How the delay is drawn below the ceiling.
    public var jitter: Jitter

    /// Creates a backoff; the defaults are the reconnect numbers from the brief (1 s doubling to 30 s).
    public init(base: TimeInterval = 1, multiplier: Double = 2, cap: TimeInterval = 30, jitter: Jitter = .equal) {
        self.base = base
        self.multiplier = multiplier
        self.cap = cap
        self.jitter = jitter
    }

    /// Reconnecting a WebSocket and retrying an outbox entry: 1 s doubling, capped at 30 s, equal jitter.
    public static let standard = Backoff()

    /// After a close that says "reconnect now, elsewhere" (4012, a draining node): uniform in 0...1 s, so the
    /// streams a node spread over its drain window stay spread, and none waits out a failure's backoff.
    public static let moveElsewhere = Backoff(base: 1, multiplier: 1, cap: 1, jitter: .full)

    /// After a stream that had been up dropped without a close frame (1006: its node crashed, or the network went):
    /// uniform in 0...3 s for the first reconnect; failures after it follow `standard` from its second attempt.
    /// `standard`'s first wait, 0.5-1 s, brought the 8,000 drivers a killed node held back onto the node left
    /// within half a second; over 3 s that node takes a sixth of them in any half second, and the spread stays well
    /// inside the 10 s a crash may cost a driver (docs/BENCHMARKS.md, "A crash storm").
    public static let afterDrop = Backoff(base: 3, multiplier: 1, cap: 3, jitter: .full)

    /// The delay before the next attempt without jitter, in `0...cap`; attempts below 1 count as 1.
    public func ceiling(afterAttempt attempt: Int) -> TimeInterval {
        let safeCap = Self.nonNegative(cap)
        let safeBase = Self.nonNegative(base)
        let growth = multiplier.isFinite && multiplier >= 1 ? multiplier : 1
        guard safeBase > 0 else { return 0 }
        // A huge attempt overflows pow() to infinity, which the cap then absorbs.
        let value = safeBase * pow(growth, Double(max(1, attempt) - 1))
        return value.isFinite ? min(safeCap, value) : safeCap
    }

    /// The jittered delay before the next attempt, in seconds, never negative and never above the cap.
    public func delay<G: RandomNumberGenerator>(afterAttempt attempt: Int, using generator: inout G) -> TimeInterval {
        let ceiling = ceiling(afterAttempt: attempt)
        switch jitter {
        case .none:
            return ceiling
        case .full:
            return ceiling * Self.unitInterval(using: &generator)
        case .equal:
            let half = ceiling / 2
            return half + half * Self.unitInterval(using: &generator)
        }
    }

    /// The wait before the next attempt when the server answered with `Retry-After: retryAfter` seconds (nil: it
    /// did not): at least the server's wait, capped at `cap` (a server's `3600` must not park a driver's "Trip
    /// ended" for an hour) and spread by up to a quarter more from `generator`, so phones told the same instant do
    /// not come back together; never less than the backoff's own draw, which grows with each failure.
    public func delay<G: RandomNumberGenerator>(
        afterAttempt attempt: Int, retryAfter: TimeInterval?, using generator: inout G
    ) -> TimeInterval {
        let own = delay(afterAttempt: attempt, using: &generator)
        guard let retryAfter, retryAfter.isFinite, retryAfter > 0 else { return own }
        let asked = min(retryAfter, Self.nonNegative(cap))
        let spread = jitter == .none ? 0 : asked / 4 * Self.unitInterval(using: &generator)
        return min(max(own, asked + spread), Self.nonNegative(cap))
    }

    /// A uniform draw in [0, 1) from the top 53 bits of one generator word.
    ///
    /// Written out rather than `Double.random(in:using:)` so that a seeded generator gives the same
    /// delays on every platform and toolchain, which the tests pin exactly.
    static func unitInterval<G: RandomNumberGenerator>(using generator: inout G) -> Double {
        Double(generator.next() >> 11) * 0x1p-53
    }

    private static func nonNegative(_ value: TimeInterval) -> TimeInterval {
        value.isFinite && value > 0 ? value : 0
    }
}
