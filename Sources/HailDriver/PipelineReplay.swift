import Foundation
import HailCore

/// Recorded fixes played through the driver's real location pipeline on virtual time, the way the runtime
/// would: the hardware's distance filter first, wake-ups at the times asked for, and a server that
/// acknowledges every batch at once. What `hail bench wire` measures a shift's upload with, and what the
/// shift-budget tests pin, so the two can never disagree.
public struct PipelineReplay: Sendable {
    /// The pipeline being replayed.
    public private(set) var pipeline: DriverLocationPipeline
    /// Fixes the hardware would not have reported (inside the distance filter).
    public private(set) var hardwareSuppressed = 0
    /// Every batch sent, in order.
    public private(set) var sent: [LocationBatch] = []
    private var wake: Date?
    private var lastDelivered: LocationPoint?

    /// A connected pipeline under `policy`, starting at `start`, buffering up to `bufferCapacity` fixes offline;
    /// `riderWatching` for a driver on the way to a pickup or on a trip.
    public init(policy: LocationPolicy, start: Date, bufferCapacity: Int = 1000, riderWatching: Bool = false) {
        pipeline = DriverLocationPipeline(policy: policy, bufferCapacity: bufferCapacity)
        handle(pipeline.riderWatchingChanged(riderWatching, now: start))
        handle(pipeline.linkUp(.stream, now: start))
    }

    /// Plays `points`, then lets time run `tail` seconds past the last one.
    public mutating func play(_ points: [LocationPoint], tail: TimeInterval = 0) {
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
    public mutating func runWakes(before end: Date) {
        while let due = wake, due < end {
            wake = nil
            handle(pipeline.tick(now: due))
        }
    }

    /// The link drops: what is sent from now on is buffered.
    public mutating func linkDown() { pipeline.linkDown() }

    /// The link is back at `now`: the buffer flushes.
    public mutating func linkUp(now: Date) {
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
