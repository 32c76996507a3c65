import Foundation

/// A clock that reads the calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`): what a computation costs one
/// thread, whatever else the machine runs. On the shared build machine the load average reaches 20 on 2 cores, and
/// the wall clock then times the scheduler's queue: `hail bench match` once measured 1.2 s of CPU in 27 s of wall time.
/// Only for work that stays on one thread without suspending between `now` and `now`.
public struct ThreadCPUClock: Clock {
    /// A point in the thread's CPU time.
    public struct Instant: InstantProtocol {
        /// CPU time since the thread started.
        public var offset: Duration

        /// This instant moved by `duration`.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

        /// The CPU time from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }

        /// Ordered by CPU time.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    /// A clock of the calling thread's CPU time.
    public init() {}

    /// The calling thread's CPU time now.
    public var now: Instant {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Instant(offset: .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec))
    }

    /// The clock's resolution, a nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// CPU time cannot be waited for; sleeping returns at once.
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {}
}
