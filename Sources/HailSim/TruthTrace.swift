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
    /// on the path in `fixWindow` (nil when it is more than `limit` metres off it), then followed for as
    /// long as the car stayed within a few metres of it, so a parked car's position stays true.
    func lastTrue(_ point: Coordinate, fixWindow: ClosedRange<Double>, now: Double, limit: Double) -> Double? {
        let path = samples(in: fixWindow.lowerBound...max(now, fixWindow.upperBound))
        // The segment that crosses the window's end counts: the fix may be from just before it.
        let inWindow = path.prefix { $0.time <= fixWindow.upperBound }.count
        let fixPath = Array(path.prefix(min(path.count, inWindow + 1)))
        guard let fix = Self.matches(of: point, along: fixPath, in: fixWindow).latest, fix.distance <= limit else {
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
    /// within 5 m of it.
    static func matches(of point: Coordinate, along path: [Sample], in window: ClosedRange<Double>) -> (
        nearest: Match?, latest: Match?
    ) {
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
        // makes two passes a few metres apart, and GPS noise cannot tell them apart, so the latest wins.
        let passes = projections.indices.filter { index in
            let here = projections[index].distance
            return (index == 0 || projections[index - 1].distance >= here)
                && (index == projections.count - 1 || projections[index + 1].distance >= here)
        }
        let latest = passes.map { projections[$0] }.filter { $0.distance <= nearest.distance + 5 }.max {
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
