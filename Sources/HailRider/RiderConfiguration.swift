import Foundation
import HailCore

/// The rider runtime's tunables; the defaults are the design's numbers.
public struct RiderConfiguration: Sendable, Hashable {
    /// Waits between attempts of one "Request" or "Cancel" tap: 3 attempts, 1 s then 2 s.
    public var requestRetries: RetrySchedule
    /// Waits between reconnects of the live stream: exponential with jitter, capped at 30 s.
    public var reconnect: Backoff
    /// The wait before reconnecting after a close that says "reconnect now, elsewhere" (4012, a draining node):
    /// a short jitter, not counted as a failure.
    public var move: Backoff
    /// After this many failed stream attempts in a row the wait before the next one is filled with polls.
    public var pollAfterFailures: Int
    /// Seconds between polls of `GET /v1/trips/{id}` while the stream cannot be had, until the server's flags give
    /// an interval (`ClientConfig.liveStream`), which then wins.
    public var pollInterval: TimeInterval
    /// How the car glides between fixes.
    public var glide: Glide.Configuration
    /// How long an ETA disagreement must last before the shown minutes change.
    public var etaHold: TimeInterval
    /// Seconds without a frame after which a stream carrying a car on its way (to the pickup or the dropoff) is
    /// reopened on a new connection, from the cursor: on a lossy cellular link TCP holds every frame behind a
    /// lost one until it is retransmitted (1 s at the median, 15 s at p95), and a new connection does not wait
    /// for it. A reopening that brings no newer position doubles the wait (up to 60 s), so a car with nothing to
    /// say is not asked again and again. 0: never.
    public var stallSeconds: TimeInterval

    /// Creates a configuration.
    public init(
        requestRetries: RetrySchedule = .riderRequest, reconnect: Backoff = .standard, pollAfterFailures: Int = 3,
        pollInterval: TimeInterval = 4, glide: Glide.Configuration = Glide.Configuration(), etaHold: TimeInterval = 8,
        move: Backoff = .moveElsewhere, stallSeconds: TimeInterval = 3
    ) {
        self.requestRetries = requestRetries
        self.reconnect = reconnect
        self.move = move
        self.pollAfterFailures = max(1, pollAfterFailures)
        self.pollInterval = max(1, pollInterval)
        self.glide = glide
        self.etaHold = etaHold
        self.stallSeconds = max(0, stallSeconds)
    }
}
