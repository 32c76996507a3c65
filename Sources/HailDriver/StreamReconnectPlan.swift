import Foundation
import HailCore
import HailProtocol

/// When the driver stream is tried again after it ended: the backoff's attempt count, the instant of the next try,
/// and whether an answer over REST from the same server brings that try forward. Pure: it takes `now` and a
/// generator for its draws, and `DriverStreamLoop` sleeps until `wakeAt`.
///
/// A server whose storage is paused closes every stream at once with 4013 (1013 from an older server), so the backoff grows through an outage
/// (to 30 s) and starts over only after a steady stream: one up `steadyAfter`, or `steadyBeforeOutage` when it ended
/// with 4013 (a node whose Redis link flaps closes streams that were up a while: those waits keep growing), so the
/// next outage, minutes later, starts from the first step and not from where the last one left the count. Meanwhile the app's positions go over REST, and the first
/// of them the server takes says the outage is over: waiting out the rest of the backoff left the driver online and
/// offered trips they could not see (12 s in the fault suite's Redis pause, up to the cap). So a REST answer during
/// an outage's wait (a close with 4013 or 1013, or no connection at all) moves the next try to within `afterServerAnswered`'s
/// draw (0-1 s, so a fleet told at once does not come back at once), at most once per `hurrySpacing`: a server
/// whose REST works while its streams still close with 4013 is tried that much more often, not on every answer.
/// The attempt count stays: a hurried try that fails again waits the next step of the backoff. The other waits keep
/// their reasons: a draining node's 4012 its own jitter, a crashed node's drop the spread of the crash storm.
struct StreamReconnectPlan: Sendable, Hashable {
    /// How a stream attempt ended.
    enum End: Sendable, Hashable {
        /// The stream had been up `upFor` seconds and ended with the server's close `code` (nil: dropped, or closed
        /// by the app).
        case closed(WebSocketCloseCode?, upFor: TimeInterval)
        /// No stream was had.
        case connectFailed
    }

    /// The wait after a failure, growing with the attempt count.
    var backoff: Backoff
    /// The wait after a close that asks for a reconnect at once (`WebSocketCloseCode.reconnectsAtOnce`).
    var move: Backoff = .moveElsewhere
    /// The wait after a stream that had stayed up dropped without a close frame.
    var afterDrop: Backoff = .afterDrop
    /// How long a stream must stay up for its end to count as a fresh drop rather than one more failure.
    var steadyAfter: TimeInterval = 10
    /// How long a stream closed with 4013 (or 1013) must have stayed up for its close to start a new outage's count.
    var steadyBeforeOutage: TimeInterval = 120
    /// The wait, from a REST answer, of a try it brings forward.
    var afterServerAnswered: Backoff = .moveElsewhere
    /// The least time between two tries brought forward by REST answers.
    var hurrySpacing: TimeInterval = 10

    /// Failures since the last steady stream.
    private(set) var attempt = 0
    /// When to try next; nil while trying.
    private(set) var wakeAt: Date?
    /// True while the wait is an outage's (a close with 4013 or 1013, or no connection), which a REST answer ends.
    private(set) var outage = false
    /// When a REST answer last brought a try forward.
    private(set) var hurriedAt: Date?

    /// A plan with nothing tried yet.
    init(backoff: Backoff) { self.backoff = backoff }

    /// The loop is trying now.
    mutating func trying() {
        wakeAt = nil
        outage = false
    }

    /// The attempt ended at `now`; returns when to try again.
    @discardableResult
    mutating func ended(_ end: End, now: Date, using generator: inout some RandomNumberGenerator) -> Date {
        var moving = false
        var dropped = false
        switch end {
        case .closed(let code, let upFor):
            moving = code?.reconnectsAtOnce == true
            let steady = upFor >= (code?.isOutage == true ? steadyBeforeOutage : steadyAfter)
            if steady { attempt = 0 }
            dropped = steady && code == nil
            outage = code?.isOutage == true
        case .connectFailed:
            outage = true
        }
        // A draining node's "reconnect now, elsewhere" (4012) is no failure: a jitter, not the backoff.
        if !moving { attempt += 1 }
        let delay =
            if moving {
                move.delay(afterAttempt: 1, using: &generator)
            } else if dropped {
                afterDrop.delay(afterAttempt: 1, using: &generator)
            } else {
                backoff.delay(afterAttempt: attempt, using: &generator)
            }
        let wake = now.addingTimeInterval(delay)
        wakeAt = wake
        return wake
    }

    /// A REST call to the same server succeeded at `now`: returns the earlier instant the next try moved to, or nil
    /// when the wait stays (no outage's wait under way, one brought forward within `hurrySpacing`, or the draw not
    /// sooner). Draws only when it may move the try.
    mutating func serverAnswered(now: Date, using generator: inout some RandomNumberGenerator) -> Date? {
        guard let wake = wakeAt, outage, wake > now else { return nil }
        // A clock stepped back (`hurriedAt` after now) does not hold the next hurry off.
        if let hurriedAt, now >= hurriedAt, now.timeIntervalSince(hurriedAt) < hurrySpacing { return nil }
        let soon = now.addingTimeInterval(afterServerAnswered.delay(afterAttempt: 1, using: &generator))
        guard soon < wake else { return nil }
        hurriedAt = now
        wakeAt = soon
        return soon
    }
}
