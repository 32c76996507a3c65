import Foundation

/// How a node drains on SIGTERM (`hail server --drain-grace-seconds`, `--drain-spread-seconds`,
/// `--drain-seconds`; docs/DEPLOY.md, "Drain and rolling restarts").
public struct DrainSettings: Sendable, Hashable {
    /// From the signal to the listeners' close: `/readyz` answers 503 `draining` meanwhile and the node still takes
    /// connections, so a balancer probing `/readyz` has time to stop sending any.
    public var grace: TimeInterval
    /// The window the WebSocket closes (4012) are spread over once the listeners are closed, so a fleet does not
    /// reconnect elsewhere in one instant.
    public var spread: TimeInterval
    /// From the signal to the exit at the latest, whatever is still open.
    public var bound: TimeInterval

    /// Settings; `grace + spread` must leave room under `bound` (`problem` says when it does not).
    public init(grace: TimeInterval = 5, spread: TimeInterval = 5, bound: TimeInterval = 30) {
        self.grace = grace
        self.spread = spread
        self.bound = bound
    }

    /// Why these settings cannot work, or nil: each must be finite and not negative, and the bound must leave at
    /// least a second after the grace and the spread for the last closes and the flush.
    public var problem: String? {
        for (name, value) in [("--drain-grace-seconds", grace), ("--drain-spread-seconds", spread)] {
            guard value.isFinite, value >= 0 else { return "\(name) must be 0 seconds or more" }
        }
        guard bound.isFinite, bound > 0 else { return "--drain-seconds must be more than 0 seconds" }
        guard grace + spread + 1 <= bound else {
            return "--drain-seconds (\(Self.format(bound))) must be at least --drain-grace-seconds"
                + " (\(Self.format(grace))) + --drain-spread-seconds (\(Self.format(spread))) + 1"
        }
        return nil
    }

    private static func format(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
