import Foundation

/// Estimates, on the server's clock, when a driver's phone took each fix, so the rider's pin ages from the
/// moment the car was there rather than from the moment the fix reached the server.
///
/// The phone stamps each fix with its own clock (`LocationPoint.t`), whose offset from the server's clock is
/// unknown and may be minutes, and each batch with when it sent it (`LocationBatch.sentAt`, the same clock).
/// What the server sees of each batch is its lag, `receivedAt - sentAt`: that offset plus how long the batch
/// took to arrive. The smallest lag of the last `window` is the offset plus the quickest arrival seen, so
/// `t + smallest lag` is when a fix was taken, late by at most that quickest arrival (a few tens of
/// milliseconds on 4G, under a few hundred on 3G), however long the fix waited in the phone's batcher. A
/// batch without `sentAt` (an app before it) lends its newest fix's `t` instead, whose lag includes that
/// fix's wait, so the estimate is late by the shortest wait seen. The phone's offset cancels out: only
/// differences of its own times are used, so a phone whose clock is wrong still gets the right age. A fix is
/// never made younger than its receipt, and with a single batch of a phone that does not say when it sent
/// it, the newest fix's estimate is its receipt, the age the design measured before.
///
/// A phone that reports its quickest recent round trip (`LocationBatch.roundTrip`, sent to acknowledged on its own
/// clock) bounds that quickest arrival: a batch cannot arrive faster than the round trip it is part of, so
/// `t + smallest lag - round trip` is never after the fix was taken, early by about the way back (the fix looks a
/// little older than it is; the pin never says live for longer than it should). Without it a pin on 3G said live for
/// a fix 6.24 s old, its estimate 0.4 s late from the three batches a driver had sent (issue 14, eighth pass).
///
/// A phone clock set forward shows at once (a smaller lag). One set back makes fixes look older than they
/// are until the lags from before leave the window: the pin says updating too early for at most `window`,
/// never live for a stale position.
///
/// Pure value: the server keeps one per driver, calls `observe` for every batch, then `fixedAt` for the
/// fixes it publishes.
public struct FixTimeEstimator: Sendable, Hashable {
    /// How long a lag counts towards the smallest.
    public var window: TimeInterval { lags.window }

    /// The smallest lag of the window: the phone's clock offset plus the quickest arrival.
    private var lags: SlidingMinimum
    /// The quickest round trip the phone last reported, seconds.
    private var roundTrip: TimeInterval?

    /// Creates an estimator that has seen nothing; `window` defaults to two minutes.
    public init(window: TimeInterval = 120) {
        lags = SlidingMinimum(window: window)
    }

    /// The smallest lag of the window, in seconds (the phone's clock offset plus the quickest arrival), or nil
    /// before any batch.
    public var smallestLag: TimeInterval? { lags.minimum }

    /// A batch arrived at `receivedAt` (server time) that the phone sent at `deviceTime` (phone time: the batch's
    /// `sentAt`, or its newest fix's `t` when it does not say), reporting its quickest recent round trip
    /// `roundTrip` (seconds) when it does.
    public mutating func observe(deviceTime: Date, receivedAt: Date, roundTrip: TimeInterval? = nil) {
        lags.note(receivedAt.timeIntervalSince(deviceTime), at: receivedAt)
        if let roundTrip, roundTrip.isFinite, roundTrip >= 0 { self.roundTrip = roundTrip }
    }

    /// When the phone took a fix stamped `deviceTime`, in server time: `deviceTime` plus the smallest lag, less the
    /// phone's quickest round trip when it reported one, never after `receivedAt` (its batch's arrival). Call
    /// `observe` for the batch first.
    public func fixedAt(deviceTime: Date, receivedAt: Date) -> Date {
        guard let lag = smallestLag else { return receivedAt }
        let estimate = deviceTime.addingTimeInterval(lag - (roundTrip ?? 0))
        return estimate < receivedAt ? estimate : receivedAt
    }
}
