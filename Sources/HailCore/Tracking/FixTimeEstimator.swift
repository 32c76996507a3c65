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
/// A phone clock set forward shows at once (a smaller lag). One set back makes fixes look older than they
/// are until the lags from before leave the window: the pin says updating too early for at most `window`,
/// never live for a stale position.
///
/// Pure value: the server keeps one per driver, calls `observe` for every batch, then `fixedAt` for the
/// fixes it publishes.
public struct FixTimeEstimator: Sendable, Hashable {
    /// How long a lag counts towards the smallest.
    public let window: TimeInterval

    /// The most lags kept: the candidates for the smallest lag of the window, each smaller than the ones
    /// after it and older (a lag with a smaller or equal one after it can never be the smallest again).
    public static let capacity = 64

    private var lags: [Lag] = []

    private struct Lag: Sendable, Hashable {
        /// When the batch arrived, server time.
        var at: Date
        /// `receivedAt - t` of its newest fix, seconds.
        var seconds: TimeInterval
    }

    /// Creates an estimator that has seen nothing; `window` defaults to two minutes.
    public init(window: TimeInterval = 120) {
        self.window = window.isFinite ? max(0, window) : 120
    }

    /// The smallest lag of the window, in seconds (the phone's clock offset plus the quickest arrival), or nil
    /// before any batch.
    public var smallestLag: TimeInterval? { lags.first?.seconds }

    /// A batch arrived at `receivedAt` (server time) that the phone sent at `deviceTime` (phone time: the batch's
    /// `sentAt`, or its newest fix's `t` when it does not say).
    public mutating func observe(deviceTime: Date, receivedAt: Date) {
        let seconds = receivedAt.timeIntervalSince(deviceTime)
        guard seconds.isFinite else { return }
        while let last = lags.last, last.seconds >= seconds { lags.removeLast() }
        lags.append(Lag(at: receivedAt, seconds: seconds))
        let cutoff = receivedAt.addingTimeInterval(-window)
        while let first = lags.first, first.at < cutoff { lags.removeFirst() }
        if lags.count > Self.capacity { lags.removeFirst(lags.count - Self.capacity) }
    }

    /// When the phone took a fix stamped `deviceTime`, in server time: `deviceTime` plus the smallest lag,
    /// never after `receivedAt` (its batch's arrival). Call `observe` for the batch first.
    public func fixedAt(deviceTime: Date, receivedAt: Date) -> Date {
        guard let lag = smallestLag else { return receivedAt }
        let estimate = deviceTime.addingTimeInterval(lag)
        return estimate < receivedAt ? estimate : receivedAt
    }
}
