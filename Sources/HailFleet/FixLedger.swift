import Foundation
import HailCore

/// A driver app's location batches between sending and acknowledgement, and the spans in which each trip was
/// under way on the app, so each acknowledged fix is logged with the trip it was driven for. A trip's fixes begin
/// with the newest fix acknowledged before it started, where the car stood (the server's history of the trip begins
/// there too: `Fleet.tripStarted`). Pure: the logging seams feed it under their lock and write what it returns.
struct FixLedger: Sendable {
    /// A fix the server acknowledged, with the trip under way when it was taken (nil: none).
    struct Acknowledged: Sendable, Hashable {
        var point: LocationPoint
        var tripID: String?
    }

    /// Batches sent and not acknowledged, by seq.
    private(set) var pending: [Int64: LocationBatch] = [:]
    /// Each trip's span on the app: from the app first showing it `onTrip` to it first showing a final state.
    private(set) var spans: [(tripID: String, start: Date, end: Date?)] = []
    /// The newest fix the server acknowledged, by the time it was taken.
    private(set) var newestAcknowledged: LocationPoint?
    /// How many unacknowledged batches are kept: older ones are forgotten (their fixes are in the outbox).
    static let pendingLimit = 2_000

    /// Notes a batch handed to the stream or the REST call.
    mutating func sent(_ batch: LocationBatch) {
        pending[batch.seq] = batch
        if pending.count > Self.pendingLimit, let oldest = pending.keys.min() { pending[oldest] = nil }
    }

    /// The batch the server acknowledged by `seq` (each ack names its own batch), once; nil when unknown or
    /// already acknowledged.
    mutating func acknowledged(seq: Int64) -> LocationBatch? {
        guard let batch = pending.removeValue(forKey: seq) else { return nil }
        acknowledged(batch.points)
        return batch
    }

    /// Notes fixes the server acknowledged another way (with a trip's end).
    mutating func acknowledged(_ points: [LocationPoint]) {
        for point in points where newestAcknowledged.map({ point.t > $0.t }) ?? true { newestAcknowledged = point }
    }

    /// Notes the trip the app shows at `now`: opens its span on `onTrip`, closes it on a final state. Returns the
    /// fix the trip began from (the newest acknowledged one) when this opened its span.
    @discardableResult
    mutating func tripShown(id: String, state: TripState, now: Date) -> LocationPoint? {
        let index = spans.lastIndex { $0.tripID == id }
        var origin: LocationPoint?
        switch state {
        case .onTrip where index == nil:
            spans.append((id, now, nil))
            origin = newestAcknowledged
        case .completed, .cancelled, .noDriversFound:
            if let index, spans[index].end == nil { spans[index].end = now }
        default:
            break
        }
        if spans.count > 200 { spans.removeFirst(spans.count - 200) }
        return origin
    }

    /// The trip under way on the app when a fix was taken at `time`, or nil.
    func trip(at time: Date) -> String? {
        spans.last { $0.start <= time && ($0.end.map { time <= $0 } ?? true) }?.tripID
    }

    /// `points` as acknowledged fixes, each with its trip.
    func attribute(_ points: [LocationPoint]) -> [Acknowledged] {
        points.map { Acknowledged(point: $0, tripID: trip(at: $0.t)) }
    }
}
