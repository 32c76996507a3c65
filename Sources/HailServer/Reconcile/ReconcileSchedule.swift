import Foundation

/// When the reconciler runs next. Pure: the runtime asks `isDue(at:)` once a tick and reports each pass.
///
/// Every `interval` while passes succeed; every `retryInterval` while they fail (a backend down), so the first
/// pass after it comes back runs within one retry interval and repairs what the outage left behind; at once
/// (the next tick) when nudged, as when a write after a commit failed.
public struct ReconcileSchedule: Sendable, Hashable {
    /// Between passes that succeed.
    public var interval: TimeInterval
    /// Between passes while they fail.
    public var retryInterval: TimeInterval
    /// When the next pass is due; nil: now.
    public private(set) var nextAt: Date?
    /// True while the last pass failed.
    public private(set) var failing = false

    /// A schedule whose first pass is due at once.
    public init(interval: TimeInterval, retryInterval: TimeInterval) {
        self.interval = interval
        self.retryInterval = retryInterval
    }

    /// Whether a pass should run at `now`.
    public func isDue(at now: Date) -> Bool { nextAt.map { now >= $0 } ?? true }

    /// Asks for a pass at the next tick.
    public mutating func nudge() { nextAt = nil }

    /// Records a pass that ended at `now`; returns true when it succeeded after failures (a backend came back).
    @discardableResult
    public mutating func finished(succeeded: Bool, at now: Date) -> Bool {
        let healed = succeeded && failing
        failing = !succeeded
        nextAt = now.addingTimeInterval(succeeded ? interval : retryInterval)
        return healed
    }
}
