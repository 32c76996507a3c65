import Foundation

/// The driver runtime's view of time: wall-clock dates for fixes and the batcher, and sleeping until one.
///
/// Built from any `Clock` plus the date its current instant stands for, so a test's manual clock and the
/// device's continuous clock drive the same code, and nothing in the runtime reads `Date()` itself.
public struct DriverTimeline: Sendable {
    /// The current date on this timeline.
    public let now: @Sendable () -> Date
    /// Suspends until `date` on this timeline, or throws when the task is cancelled.
    public let sleepUntil: @Sendable (Date) async throws -> Void

    /// A timeline on `clock` whose current instant is `origin`.
    public init<C: Clock>(clock: C, origin: Date) where C.Duration == Duration {
        let start = clock.now
        now = { origin.addingTimeInterval(Self.seconds(start.duration(to: clock.now))) }
        sleepUntil = { date in
            let offset = max(0, date.timeIntervalSince(origin))
            try await clock.sleep(
                until: start.advanced(by: .milliseconds(Int64((offset * 1000).rounded()))), tolerance: nil)
        }
    }

    /// The device's timeline: a continuous clock anchored at the current date.
    public static func system() -> DriverTimeline {
        DriverTimeline(clock: ContinuousClock(), origin: Date())
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let parts = duration.components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) * 1e-18
    }
}
