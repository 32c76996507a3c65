import Foundation

/// How a node drains on SIGTERM (`hail server --drain-grace-seconds`, `--drain-spread-seconds`, `--drain-rate`,
/// `--drain-seconds`; docs/DEPLOY.md, "Drain and rolling restarts").
public struct DrainSettings: Sendable, Hashable {
    /// From the signal to the listeners' close: `/readyz` answers 503 `draining` meanwhile and the node still takes
    /// connections, so a balancer probing `/readyz` has time to stop sending any.
    public var grace: TimeInterval
    /// The shortest window the WebSocket closes (4012) are spread over once the listeners are closed, so a fleet
    /// does not reconnect elsewhere in one instant.
    public var spread: TimeInterval
    /// Streams a second the other nodes are asked to take: a node holding more than `spread x rate` spreads its
    /// closes over `count / rate` seconds instead (within the bound), so each move meets a node that keeps up.
    public var rate: Double
    /// Seconds between the last driver's close and the first watcher's (`DrainPlan.handover`), when there is room.
    public var handover: TimeInterval
    /// The longest a watcher whose driver streamed here waits, after its driver's close, for that driver's positions
    /// to come back through the bus from another node before it moves anyway (`DrainMachine`: it moves at once when
    /// they do, however early in the drain).
    public var handoverWait: TimeInterval
    /// Positions of a trip that reach the node within this long of its driver's close are not taken as the driver
    /// being back elsewhere: they may be the node's own last ones, still crossing the bus.
    public var echo: TimeInterval
    /// From the signal to the exit at the latest, whatever is still open.
    public var bound: TimeInterval

    /// Settings; `grace + spread` must leave room under `bound` (`problem` says when it does not).
    public init(
        grace: TimeInterval = 5, spread: TimeInterval = 5, rate: Double = 400, handover: TimeInterval = 2,
        handoverWait: TimeInterval = 6, echo: TimeInterval = 0.5, bound: TimeInterval = 30
    ) {
        self.grace = grace
        self.spread = spread
        self.rate = rate
        self.handover = handover
        self.handoverWait = handoverWait
        self.echo = echo
        self.bound = bound
    }

    /// Why these settings cannot work, or nil: each must be finite and not negative, the rate above 0, and the
    /// bound must leave at least a second after the grace and the spread for the last closes and the flush.
    public var problem: String? {
        for (name, value) in [("--drain-grace-seconds", grace), ("--drain-spread-seconds", spread)] {
            guard value.isFinite, value >= 0 else { return "\(name) must be 0 seconds or more" }
        }
        guard rate.isFinite, rate > 0 else { return "--drain-rate must be more than 0 streams a second" }
        guard handover.isFinite, handover >= 0 else { return "the drain's handover must be 0 seconds or more" }
        guard handoverWait.isFinite, handoverWait >= 0, echo.isFinite, echo >= 0 else {
            return "the drain's handover wait and echo must be 0 seconds or more"
        }
        guard bound.isFinite, bound > 0 else { return "--drain-seconds must be more than 0 seconds" }
        guard grace + spread + 1 <= bound else {
            return "--drain-seconds (\(Self.format(bound))) must be at least --drain-grace-seconds"
                + " (\(Self.format(grace))) + --drain-spread-seconds (\(Self.format(spread))) + 1"
        }
        return nil
    }

    /// When `streams` (listed at `now`, `elapsed` seconds after the signal) are closed: one window of
    /// `max(spread, count / rate)` seconds, cut to what the bound leaves (a second kept for the flush), shared by
    /// drivers and watchers in proportion to their numbers, the drivers' first and the handover between them.
    public func plan(_ streams: DrainStreams, at now: Date, elapsed: TimeInterval) -> DrainPlan {
        let room = max(0, bound - elapsed - 1)
        let both = !streams.drivers.isEmpty && !streams.watchers.isEmpty
        let gap = both ? min(handover, max(0, room - spread)) : 0
        let total = Double(streams.count)
        let window = min(max(spread, total / rate), max(0, room - gap))
        let driversWindow = total == 0 ? window : window * Double(streams.drivers.count) / total
        return DrainPlan(
            start: now, driversWindow: driversWindow, handover: gap, watchersWindow: window - driversWindow)
    }

    private static func format(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
