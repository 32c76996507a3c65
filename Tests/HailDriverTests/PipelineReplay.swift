import Foundation
import HailCore
import HailDriver
import HailProtocol

/// Runs recorded fixes through the pipeline on virtual time, the way the runtime would: the hardware's
/// distance filter first, wake-ups at the times asked for, and a server that acknowledges every batch.
struct PipelineReplay {
    var pipeline: DriverLocationPipeline
    var hardwareSuppressed = 0
    var sent: [LocationBatch] = []
    private var wake: Date?
    private var lastDelivered: LocationPoint?

    init(policy: LocationPolicy, start: Date, bufferCapacity: Int = 1000) {
        pipeline = DriverLocationPipeline(policy: policy, bufferCapacity: bufferCapacity)
        handle(pipeline.linkUp(.stream, now: start))
    }

    /// Plays `points`, then lets time run `tail` seconds past the last one.
    mutating func play(_ points: [LocationPoint], tail: TimeInterval = 0) {
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
    mutating func runWakes(before end: Date) {
        while let due = wake, due < end {
            wake = nil
            handle(pipeline.tick(now: due))
        }
    }

    mutating func linkDown() { pipeline.linkDown() }

    mutating func linkUp(now: Date) {
        handle(pipeline.linkUp(.stream, now: now))
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
