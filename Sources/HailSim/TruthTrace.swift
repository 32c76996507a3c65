import Foundation
import HailCore
import Synchronization

/// Where one simulated car truly was, once a second: the simulated truth the rider's screen is judged
/// against. The car writes it and the riders' audits read it, from different actors, so a mutex guards it.
final class TruthTrace: Sendable {
    /// One true position at one instant.
    struct Sample: Sendable, Hashable {
        /// Seconds since 1970 on the city's timeline (the server's clock in this process).
        var time: Double
        var coordinate: Coordinate
        /// True when the phone had no fix there (a tunnel).
        var blind = false
    }

    /// A place on the trace: when the car was there and how far that is from the point asked about.
    struct Match: Sendable, Hashable {
        var time: Double
        var distance: Double
    }

    private let samples = Mutex<[Sample]>([])
    /// The fixes of each batch the car's phone sent, by seq: when it took them (its clock is the city's) and
    /// where it said the car was.
    private let fixes = Mutex<[Int64: [(time: Double, coordinate: Coordinate)]]>([:])
    /// Samples older than this many seconds behind the newest are forgotten.
    private let horizon: Double

    init(horizon: Double = 180) { self.horizon = horizon }

    /// Records the car at `coordinate` at `date`; `blind` when its phone could have no fix there.
    func record(_ coordinate: Coordinate, at date: Date, blind: Bool = false) {
        let time = date.timeIntervalSince1970
        samples.withLock { samples in
            samples.append(Sample(time: time, coordinate: coordinate, blind: blind))
            // Trim in chunks so the array is not shifted every second.
            if let first = samples.first, time - first.time > horizon * 1.5 {
                samples.removeAll { time - $0.time > horizon }
            }
        }
    }

    /// Notes a batch the car's phone sent (a resend under the same seq replaces it).
    func sent(_ batch: LocationBatch) {
        let points = batch.points.map { (time: $0.t.timeIntervalSince1970, coordinate: $0.coordinate) }
        fixes.withLock { fixes in
            fixes[batch.seq] = points
            // Forget batches past the horizon now and then, not on every send.
            if fixes.count > 512, let newest = points.last?.time {
                fixes = fixes.filter { ($0.value.last?.time ?? 0) > newest - horizon }
            }
        }
    }

    /// When the phone took the fix of batch `seq` that `point` shows: the newest of the batch's fixes taken where
    /// the car truly was within `radius` metres of `point` (GPS noise, and the server's move onto the road); nil
    /// when the batch is unknown or none was (the point is not that fix's position).
    func taken(batch seq: Int64, showing point: Coordinate, within radius: Double) -> Double? {
        guard let points = fixes.withLock({ $0[seq] }) else { return nil }
        for fix in points.reversed() {
            guard let car = position(at: fix.time) else { continue }
            if car.distance(to: point) <= radius { return fix.time }
        }
        return nil
    }

    /// Where the car was at `time`, between the samples around it; nil outside the trace.
    func position(at time: Double) -> Coordinate? {
        let around = samples(in: time...time)
        guard let before = around.last(where: { $0.time <= time }) else { return nil }
        guard let after = around.first(where: { $0.time > time }) else {
            return before.time == time ? before.coordinate : nil
        }
        let fraction = (time - before.time) / (after.time - before.time)
        return before.coordinate.interpolated(to: after.coordinate, fraction: fraction)
    }

    /// The samples whose times lie in `window`, with the one just before and the one just after it (the
    /// segments into and out of the window).
    func samples(in window: ClosedRange<Double>) -> [Sample] {
        samples.withLock { samples in
            guard var end = samples.lastIndex(where: { $0.time <= window.upperBound }) else { return [] }
            var start = end
            while start > 0 && samples[start].time > window.lowerBound { start -= 1 }
            if end + 1 < samples.count { end += 1 }
            return Array(samples[start...end])
        }
    }

    /// The latest instant in `window` at which the car passed (about) nearest to `point`: the latest
    /// pass within 5 m of the nearest one.
    func latest(near point: Coordinate, in window: ClosedRange<Double>) -> Match? {
        Self.matches(of: point, along: samples(in: window), in: window).latest
    }

    /// The last instant up to `now` at which `point` was still where the car truly was: the fix is placed
    /// on the path in `fixWindow` (nil when it is more than `limit` metres off it), at the latest pass within
    /// `noise` metres (or 5 m of the nearest pass, if that is further), then followed for as long as the car
    /// stayed within a few metres of it, so a parked car's position stays true.
    func lastTrue(_ point: Coordinate, fixWindow: ClosedRange<Double>, now: Double, limit: Double, noise: Double = 0)
        -> Double?
    {
        let path = samples(in: fixWindow.lowerBound...max(now, fixWindow.upperBound))
        // The segment that crosses the window's end counts: the fix may be from just before it.
        let inWindow = path.prefix { $0.time <= fixWindow.upperBound }.count
        let fixPath = Array(path.prefix(min(path.count, inWindow + 1)))
        guard let fix = Self.matches(of: point, along: fixPath, in: fixWindow, noise: noise).latest,
            fix.distance <= limit
        else {
            return nil
        }
        var last = fix.time
        for sample in path where sample.time > fix.time && sample.time <= now {
            guard point.distance(to: sample.coordinate) <= fix.distance + 3 else { break }
            last = sample.time
        }
        return last
    }

    /// True when the phone had no fix at some moment in `window` (the car was in a tunnel).
    func wasBlind(in window: ClosedRange<Double>) -> Bool {
        samples(in: window).contains { $0.blind && window.contains($0.time) }
    }

    /// The instant in `window` at which the car was nearest to `point`.
    func nearest(to point: Coordinate, in window: ClosedRange<Double>) -> Match? {
        Self.matches(of: point, along: samples(in: window), in: window).nearest
    }

    /// Projects `point` on every segment of the path and returns the nearest match and the latest pass
    /// within 5 m of it, or within `noise` metres of the point when that is further.
    static func matches(of point: Coordinate, along path: [Sample], in window: ClosedRange<Double>, noise: Double = 0)
        -> (nearest: Match?, latest: Match?)
    {
        guard let first = path.first else { return (nil, nil) }
        var projections: [Match] = []
        if path.count == 1 {
            projections.append(Match(time: first.time, distance: point.distance(to: first.coordinate)))
        }
        for index in path.indices.dropFirst() {
            let from = path[index - 1]
            let to = path[index]
            let fraction = Self.fraction(of: point, from: from.coordinate, to: to.coordinate)
            let time = from.time + (to.time - from.time) * fraction
            let clamped = min(max(time, window.lowerBound), window.upperBound)
            let spot = from.coordinate.interpolated(to: to.coordinate, fraction: fraction)
            projections.append(Match(time: clamped, distance: point.distance(to: spot)))
        }
        guard let nearest = projections.min(by: { $0.distance < $1.distance }) else { return (nil, nil) }
        // Each pass of the car by the point is a local minimum of the distance along the path; a U-turn
        // makes two passes a few metres apart, and GPS noise cannot tell them apart, so the latest wins:
        // the nearest may be an earlier pass only by chance of the noise.
        let passes = projections.indices.filter { index in
            let here = projections[index].distance
            return (index == 0 || projections[index - 1].distance >= here)
                && (index == projections.count - 1 || projections[index + 1].distance >= here)
        }
        let latest = passes.map { projections[$0] }.filter { $0.distance <= max(nearest.distance + 5, noise) }.max {
            $0.time < $1.time
        }
        return (nearest, latest ?? nearest)
    }

    /// Where on the segment from `a` to `b` the point projects, in [0, 1], on a local flat projection.
    static func fraction(of point: Coordinate, from a: Coordinate, to b: Coordinate) -> Double {
        let metresPerDegree = 111_195.0
        let east = metresPerDegree * cos(a.lat * .pi / 180)
        let bx = (b.lng - a.lng) * east
        let by = (b.lat - a.lat) * metresPerDegree
        let px = (point.lng - a.lng) * east
        let py = (point.lat - a.lat) * metresPerDegree
        let length = bx * bx + by * by
        guard length > 1e-9 else { return 0 }
        return min(1, max(0, (px * bx + py * by) / length))
    }
}
