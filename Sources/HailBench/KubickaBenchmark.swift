import Foundation
import HailCore
import HailRoads

/// `hail bench match`: the project's map matcher, with its defaults, on real drives whose true route is known (the
/// Kubicka et al. 2015 data set), at every fix and at every `n`th, scored as Newson and Krumm (2009) score a match.
///
/// Route error is the length of the matched route not in the truth plus the length of the truth not in the matched
/// route, over the truth's length, arcs compared as sets; recovered is the share of the truth's length matched and
/// precision the share of the matched length in the truth. A thinned track keeps its last fix, so every rate is
/// scored on the whole drive.
public enum KubickaBenchmark {
    /// The fix rates measured: every fix, every 5th, 15th and 30th.
    public static let defaultStrides = [1, 5, 15, 30]

    /// Matches every track at every stride; the clock times only the matching (the map's graph and index are built
    /// before, once per track, as the server builds its own once).
    public static func run<C: Clock>(tracks: [KubickaTrack], strides: [Int] = defaultStrides, clock: C)
        -> KubickaBenchmarkResult where C.Duration == Duration
    {
        var scores: [KubickaBenchmarkResult.Score] = []
        for track in tracks {
            let matcher = MapMatcher(router: RoadRouter(graph: track.graph))
            for stride in strides {
                let fixes = thinned(track.fixes, every: stride)
                let start = clock.now
                let match = matcher.match(fixes)
                let elapsed = start.duration(to: clock.now).timeInterval
                scores.append(score(match, of: track, stride: stride, fixes: fixes.count, seconds: elapsed))
            }
        }
        return KubickaBenchmarkResult(scores: scores, strides: strides, machine: BenchMachine.current())
    }

    /// Every `stride`th element of `fixes` from the first, and the last.
    static func thinned(_ fixes: [Coordinate], every stride: Int) -> [Coordinate] {
        guard stride > 1, !fixes.isEmpty else { return fixes }
        var kept = Swift.stride(from: 0, to: fixes.count, by: stride).map { fixes[$0] }
        if (fixes.count - 1) % stride != 0 { kept.append(fixes[fixes.count - 1]) }
        return kept
    }

    /// `match` of `track` thinned to every `stride`th fix compared with its true route.
    static func score(_ match: MapMatch, of track: KubickaTrack, stride: Int, fixes: Int, seconds: Double)
        -> KubickaBenchmarkResult.Score
    {
        let graph = track.graph
        func length(ofArc arc: Int) -> Double { track.edgeOfArc[arc].map { graph.edges[$0].length } ?? 0 }
        let truth = Set(track.route)
        let matched = Set(match.edges.map { Int(graph.roadIDs[Int(graph.edges[$0].road)]) })
        let truthMeters = truth.reduce(0) { $0 + length(ofArc: $1) }
        let matchedMeters = matched.reduce(0) { $0 + length(ofArc: $1) }
        let missed = truth.subtracting(matched).reduce(0) { $0 + length(ofArc: $1) }
        let added = matched.subtracting(truth).reduce(0) { $0 + length(ofArc: $1) }
        return KubickaBenchmarkResult.Score(
            track: track.name, stride: stride, fixes: fixes, truthMeters: truthMeters, matchedMeters: matchedMeters,
            missedMeters: missed, addedMeters: added, breaks: match.breaks, seconds: seconds)
    }
}
