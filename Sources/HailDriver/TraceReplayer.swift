import Foundation
import HailCore
import HailTime

/// A `LocationSource` that plays recorded fixes on a timeline, at real or accelerated speed, honouring
/// the policy like the hardware would: nothing while off, and no fix closer than the distance filter to
/// the last one delivered.
///
/// The replay starts when `fixes()` is first iterated: fix `i` is due at `start + (t_i - t_0) / speed` and
/// is stamped `start + (t_i - t_0)`, so an accelerated replay keeps the recorded speeds (the filter's
/// 200 km/h check would otherwise drop a 5x replay of a city drive).
public actor TraceReplayer: LocationSource {
    /// The fixes to play, oldest first.
    public let points: [LocationPoint]
    /// Playback speed: 1 is real time, 10 is ten times faster.
    public let speed: Double
    /// Fixes handed to the runtime so far.
    public private(set) var delivered = 0
    /// Fixes held back by the policy (off, or within the distance filter).
    public private(set) var suppressed = 0
    /// True once every fix has been played.
    public private(set) var finished = false

    private let timeline: Timeline
    private var policy: LocationPolicy

    /// A replayer of `points` on `timeline`; `policy` applies until the runtime sets one.
    public init(points: [LocationPoint], speed: Double = 1, timeline: Timeline, policy: LocationPolicy = .off) {
        self.points = points
        self.speed = speed.isFinite && speed > 0 ? speed : 1
        self.timeline = timeline
        self.policy = policy
    }

    /// The fixes as they come due.
    public nonisolated func fixes() -> AsyncStream<LocationPoint> {
        AsyncStream { continuation in
            let task = Task { await self.play(into: continuation) }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Adopts the policy for the fixes still to come.
    public func apply(_ policy: LocationPolicy) {
        self.policy = policy
    }

    private func play(into continuation: AsyncStream<LocationPoint>.Continuation) async {
        guard let first = points.first else {
            finished = true
            continuation.finish()
            return
        }
        let start = timeline.now()
        var last: LocationPoint?
        for point in points {
            let offset = point.t.timeIntervalSince(first.t)
            do { try await timeline.sleep(until: start.addingTimeInterval(offset / speed)) } catch { break }
            var stamped = point
            stamped.t = start.addingTimeInterval(offset)
            if Self.passes(stamped, after: last, policy: policy) {
                last = stamped
                delivered += 1
                continuation.yield(stamped)
            } else {
                suppressed += 1
            }
        }
        finished = true
        continuation.finish()
    }

    /// True when the hardware would report `point` under `policy` after last reporting `last`.
    public static func passes(_ point: LocationPoint, after last: LocationPoint?, policy: LocationPolicy) -> Bool {
        guard !policy.isOff else { return false }
        guard let last else { return true }
        return last.coordinate.distance(to: point.coordinate) >= policy.distanceFilter
    }
}
