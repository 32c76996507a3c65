import Foundation
import HailCore
import HailDriver
import HailProtocol

/// Recorded fixes played through the driver's real location pipeline on virtual time, the way the
/// runtime would: the hardware's distance filter first, wake-ups at the times asked for, and a server
/// that acknowledges every batch at once. The same replay as the driver shift-budget tests, so the
/// figures `hail bench wire` prints are the ones those tests pin.
struct ShiftReplay {
    /// The pipeline under test.
    private(set) var pipeline: DriverLocationPipeline
    /// Fixes the hardware would not have reported (inside the distance filter).
    private(set) var hardwareSuppressed = 0
    /// Every batch sent, in order.
    private(set) var sent: [LocationBatch] = []
    private var wake: Date?
    private var lastDelivered: LocationPoint?

    /// A connected pipeline under `policy`, starting at `start`.
    init(policy: LocationPolicy, start: Date) {
        pipeline = DriverLocationPipeline(policy: policy, bufferCapacity: 1000)
        handle(pipeline.linkUp(.stream, now: start))
    }

    /// Plays `points`, then lets time run `tail` seconds past the last one.
    mutating func play(_ points: [LocationPoint], tail: TimeInterval) {
        for point in points {
            runWakes(before: point.t)
            if TraceReplayer.passes(point, after: lastDelivered, policy: pipeline.policy) {
                lastDelivered = point
                handle(pipeline.fix(point, now: point.t))
            } else {
                hardwareSuppressed += 1
            }
        }
        if let last = points.last { runWakes(before: last.t.addingTimeInterval(tail)) }
    }

    /// Runs the wake-ups due before `end`; a fix at the same instant as a wake-up goes first.
    private mutating func runWakes(before end: Date) {
        while let due = wake, due < end {
            wake = nil
            handle(pipeline.tick(now: due))
        }
    }

    private mutating func handle(_ actions: [DriverLocationPipeline.Action]) {
        for action in actions {
            switch action {
            case .send(let batch, _):
                sent.append(batch)
                pipeline.ack(batch.seq)
            case .wake(let date):
                wake = date
            }
        }
    }
}
