import Foundation

/// The server's notion of time: calendar dates for stamps (`receivedAt`, expiries) and sleeping for
/// timers, both from one injected `Clock`, so tests drive the whole server on virtual time.
///
/// Dates are the clock's elapsed time added to the date read once at start. Over a long uptime this
/// drifts from NTP's wall clock by the monotonic clock's error (seconds per week at worst), which is
/// harmless for ages measured in seconds; the process is restarted far more often than that matters.
public struct ServerTime: Sendable {
    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void
    /// The date at which the clock's elapsed time was zero.
    public let origin: Date

    /// Wraps `clock`, calling its current instant `origin`.
    public init<C: Clock>(clock: C, origin: Date) where C.Duration == Duration {
        let start = clock.now
        self.origin = origin
        elapsed = { start.duration(to: clock.now) }
        sleeper = { duration in try await clock.sleep(for: duration) }
    }

    /// The real clock, anchored at the real date now.
    public static func live() -> ServerTime { ServerTime(clock: ContinuousClock(), origin: Date()) }

    /// The server's date now.
    public func now() -> Date { origin.addingTimeInterval(elapsed().seconds) }

    /// Sleeps on the injected clock; throws when the task is cancelled.
    public func sleep(for duration: Duration) async throws { try await sleeper(duration) }

    /// Sleeps until the server's date reaches `date` (returns at once when it has).
    public func sleep(until date: Date) async throws {
        let remaining = date.timeIntervalSince(now())
        guard remaining > 0 else { return }
        try await sleep(for: .milliseconds(Int64((remaining * 1000).rounded(.up))))
    }
}

extension Duration {
    /// The duration in seconds as a floating-point number.
    var seconds: TimeInterval {
        let (whole, attoseconds) = components
        return TimeInterval(whole) + TimeInterval(attoseconds) / 1e18
    }
}
