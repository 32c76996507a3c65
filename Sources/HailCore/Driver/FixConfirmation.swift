import Foundation

/// A fix that lies farther from the last one than the phone's speed explains, or the first after the phone had
/// none, waits for the next fix to agree with it before the phone believes it.
///
/// The speed check allows 200 km/h from the last fix accepted, and its allowance grows with the gap: a multipath
/// outlier (80-250 m off, claiming the usual accuracy) passes it after two seconds without a fix (a slow car under
/// the distance filter), and after a tunnel anything does (200 km/h over 25 s is 1.4 km). One that passed went out
/// live: in monaco-3g the rider's car drove 86 m off its road to it and back; out of a tunnel one landed near where
/// the car went in and, as the reference every true fix after it was judged from, held the rider's pin there for
/// seconds, "live" for a place the car left 25 s before (issue 14, driver 13's burst).
///
/// So such a fix waits. The next fix decides: one that agrees with it (`agree`: no further than the faster of the
/// two phones' speeds drives in the time between, a quarter more, plus both accuracies) releases both; one that
/// does not replaces it and waits in turn, since one of the two is wrong and only the next can say which. A fix
/// that nothing contradicts within `longestWait` is believed: the car stands, or crawls under the distance filter.
public struct FixConfirmation: Sendable, Hashable {
    /// The fix waiting to be agreed with.
    public private(set) var waiting: LocationPoint?
    /// Fixes dropped: a waiting one the next fix disagreed with, or one not taken after the waiting one.
    public private(set) var dropped = 0

    /// How long a fix waits when no other comes (seconds from when it was taken).
    public static let longestWait: TimeInterval = 5

    /// Creates a check with nothing waiting.
    public init() {}

    /// When the waiting fix is believed if no other comes; nil when none waits.
    public var deadline: Date? { waiting.map { $0.t.addingTimeInterval(Self.longestWait) } }

    /// Starts a wait on `point`, the first fix after a silence.
    public mutating func wait(on point: LocationPoint) {
        if waiting != nil { dropped += 1 }
        waiting = point
    }

    /// The fix after the waiting one: returns the fixes to believe, oldest first (both when they agree, none
    /// when they do not, and then `point` waits). A fix not taken after the waiting one is dropped.
    public mutating func next(_ point: LocationPoint) -> [LocationPoint] {
        guard let candidate = waiting else { return [point] }
        guard point.t > candidate.t else {
            dropped += 1
            return []
        }
        if Self.agree(candidate, point) {
            waiting = nil
            return [candidate, point]
        }
        dropped += 1
        waiting = point
        return []
    }

    /// The waiting fix when its wait is over at `now`; it is then no longer waiting.
    public mutating func expire(now: Date) -> LocationPoint? {
        guard let candidate = waiting, let deadline, now >= deadline else { return nil }
        waiting = nil
        return candidate
    }

    /// True when `later` could follow `earlier` on the road: no further apart than the faster of their speeds
    /// covers in the time between them, a quarter more (a car speeding up), plus both accuracy radii. Without a
    /// speed from either, the speed check's 200 km/h.
    public static func agree(_ earlier: LocationPoint, _ later: LocationPoint) -> Bool {
        let elapsed = later.t.timeIntervalSince(earlier.t)
        guard elapsed > 0 else { return false }
        let speeds = [earlier.speed, later.speed].filter { $0 >= 0 && $0.isFinite }
        guard let fastest = speeds.max() else { return LocationFilter.judge(later, after: earlier) == .accept }
        let reach = max(fastest, 1) * elapsed * 1.25 + max(0, earlier.accuracy) + max(0, later.accuracy)
        return earlier.coordinate.distance(to: later.coordinate) <= reach
    }
}
