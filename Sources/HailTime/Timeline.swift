import Foundation

/// A runtime's time: calendar dates for stamps (a fix's time, `receivedAt`, expiries) and sleeping until one,
/// both from one injected `Clock`, so a test's manual clock and the device's or server's continuous clock drive
/// the same code and nothing in a runtime reads `Date()` itself. The one time type of Hail's runtimes (the server,
/// the rider's and the driver's models, the simulated city); HailCore's pure logic takes `now` as a parameter.
///
/// On a manual or simulated clock, dates are the clock's elapsed time added to the date its starting instant stands
/// for. The real one (`system()`) reads the wall clock for every date, so an NTP step reaches a running process,
/// and sleeps on the monotonic clock, so a step never stretches or cuts a wait asked for as a duration.
public struct Timeline: Sendable {
    private let dateNow: @Sendable () -> Date
    private let sleeper: @Sendable (Duration) async throws -> Void
    private let untilSleeper: @Sendable (Date) async throws -> Void
    /// The date the timeline started at.
    public let origin: Date

    /// A timeline on `clock` whose current instant is `origin`.
    public init<C: Clock>(clock: C, origin: Date) where C.Duration == Duration {
        let start = clock.now
        self.origin = origin
        dateNow = { origin.addingTimeInterval(start.duration(to: clock.now).timeInterval) }
        sleeper = { duration in try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil) }
        // An instant of the clock, not a duration from now, to the millisecond: a manual clock moved to exactly
        // that date wakes exactly that sleeper, however late the sleep began.
        untilSleeper = { date in
            let offset = max(0, date.timeIntervalSince(origin))
            try await clock.sleep(
                until: start.advanced(by: .milliseconds(Int64((offset * 1000).rounded()))), tolerance: nil)
        }
    }

    /// A timeline whose dates come from `now` while its waits run on `clock`: a test that drives an app's waits by
    /// hand against a real server, whose stamps are real dates. `sleep(until:)` sleeps on `clock` for what is left.
    public init<C: Clock>(clock: C, now: @escaping @Sendable () -> Date) where C.Duration == Duration {
        origin = now()
        dateNow = now
        sleeper = { duration in try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil) }
        untilSleeper = { date in
            let remaining = date.timeIntervalSince(now())
            guard remaining > 0 else { return }
            try await clock.sleep(
                until: clock.now.advanced(by: .milliseconds(Int64((remaining * 1000).rounded(.up)))), tolerance: nil)
        }
    }

    /// The real clock: dates from the wall clock as NTP keeps it (read afresh each time, so a step reaches a running
    /// process), waits on the monotonic clock. `offset` shifts every date it gives: test-only (`hail server
    /// --clock-offset-seconds`), a node whose clock is wrong by that much.
    public static func system(offset: TimeInterval = 0) -> Timeline {
        Timeline(clock: ContinuousClock(), now: { Date(timeIntervalSinceNow: offset) })
    }

    /// The date now on this timeline.
    public func now() -> Date { dateNow() }

    /// Sleeps `duration` on the clock; throws when the task is cancelled.
    public func sleep(for duration: Duration) async throws { try await sleeper(duration) }

    /// Sleeps until this timeline's date reaches `date` (returns at once when it has); throws when cancelled.
    public func sleep(until date: Date) async throws { try await untilSleeper(date) }
}

extension Duration {
    /// The duration in seconds, as Foundation counts time.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) * 1e-18
    }
}
