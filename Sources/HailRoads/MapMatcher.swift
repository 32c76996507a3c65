import Foundation
import HailCore

/// Matches a GPS trace to roads with a hidden Markov model, in the manner of Newson and Krumm (2009).
///
/// Hidden states are road positions within `candidateRadius` of each fix. A state's emission is a
/// Gaussian of the fix-to-road distance (`sigma`); a transition's is an exponential of the difference
/// between the road distance and the great-circle distance of the two road positions (`beta`): drivers take
/// direct roads. Newson and Krumm compare with the distance of the two fixes instead; their noise makes that
/// longer than the drive (a fix 15 m off a Monaco street puts its neighbours 35 m apart where the car drove
/// 22 m), and the model then chose a spur into a side street and back, or a turn round and back, to make up
/// the length: 43 m on a 1,070 m trip (issue 14). Between road positions, noise off the road costs only its
/// emission. Viterbi finds the likeliest sequence; road distances respect one-way streets and the map's
/// turn rules, as the router's do. When no candidate pair is connected the chain breaks and restarts at that fix.
///
/// Two measures against noise on dense traces: as Newson and Krumm do, a fix within `2 * sigma` of the last
/// fix used is skipped (it says nothing the noise does not drown); and a position that falls back along the
/// same road by at most `backtrackTolerance` (4 sigma) is noise, not a drive round the block: it costs
/// nothing in the model and its length is taken off the driven distance, which the next step adds back.
/// A position that falls back along a one-way road by more than that is a car driving against it: the
/// stretch is charged as driven rather than as the loop round the block a legal path would need, at a cost
/// (`againstOneWayCost`) that lets a legal drive the fixes barely show win over it.
///
/// A fix may carry the car's course (`TraceFix`): a road position driven against it costs more
/// (`courseConcentration`), and where the courses of two fixes reverse, the car turned round between them: the fix of
/// the way out is never skipped, and the way on to where it turned and back is not weighed as a detour
/// (`turnRoundReach`).
public struct MapMatcher: Sendable {
    /// The router whose graph and snapping index are used.
    public let router: RoadRouter
    /// The GPS noise in metres (Newson and Krumm measured 4.07 m).
    public var sigma: Double
    /// The transition scale in metres: how much longer than the straight line between its road positions a
    /// plausible drive is.
    public var beta: Double
    /// How far from a fix a road may be and still be a candidate, in metres.
    public var candidateRadius: Double
    /// The most candidates kept per fix, nearest first.
    public var maxCandidates: Int
    /// What a stretch against a one-way road costs in the model, as metres of detour: a legal drive up to
    /// this much longer than the straight line is the likelier. A driver breaking the rule is rarer
    /// than a turn the fixes barely show (a U-turn 15 m up the road between two carriageways, whose fixes
    /// also fit the other carriageway driven backwards, 10 m off); at 50 m a car truly driving against a
    /// one-way street with a fix every 25 m was matched partly as jitter and charged 7 % short.
    public var againstOneWayCost: Double

    /// How far back along its road a position may fall and still count as noise: 4 sigma, beyond which
    /// the along-road difference of two noisy fixes almost never goes.
    public var backtrackTolerance: Double { 4 * sigma }

    /// Creates a matcher.
    public init(
        router: RoadRouter, sigma: Double = 4.07, beta: Double = 5, candidateRadius: Double = 50,
        maxCandidates: Int = 16, againstOneWayCost: Double = 25
    ) {
        self.router = router
        self.sigma = sigma
        self.beta = beta
        self.candidateRadius = candidateRadius
        self.maxCandidates = maxCandidates
        self.againstOneWayCost = againstOneWayCost
    }

    /// What passing a fix by costs in the model, as log-likelihood: the model may step from the fix before it to
    /// the fix after, leaving it unmatched. A GPS outlier (multipath, 80-250 m off) that lands near some road can
    /// only be reached by a drive round the block and back that the fixes around it do not show; without this, it
    /// was matched anyway, every position needing a state, and a 1,883 m stalls trip whose outlier followed a
    /// tunnel was charged 2,936 m. An honest fix costs a few units in emission and transition, so it is never worth
    /// passing by; the tip of a turn back costs little either and stays.
    public var outlierCost: Double = 20

    /// What turning round at a node costs in the model, as metres of detour. A car rarely turns back between two
    /// fixes a few seconds apart, and when it does the fixes after show the way back; without a cost, one noisy fix
    /// 15 m off a Monaco street and 8 m off a side street was matched as a drive 15 m into the side street, a turn
    /// round and back out: 30 m charged on a 1,070 m trip (+3.5 %, issue 14, eighth pass). Replayed on the stored
    /// fixes of 407 simulated trips, 15 m took that trip to +0.6 % and put no other over 3 %; 25 m also lost a real
    /// turn round at the start of a 1,431 m trip that its fixes showed (-0.6 % to -2.8 %).
    public var uTurnCost: Double = 15

    /// What a road position driven the opposite way to the fix's course costs in the model, as log-likelihood: the
    /// emission of a course is a von Mises density, `courseConcentration * (cos(turn) - 1)`, 0 along the course, -4
    /// at a right angle, -8 against it. Positions alone cannot tell a car that drove 20 m up the street, turned round
    /// at the junction and came back from noise: the fix of the tip, 12 m out, was read as noise
    /// (`backtrackTolerance`) and the fare lost 40 m of a 1,431 m trip (-2.7 to -3.5 %, issue 14). Its course said it
    /// was driving out, the next fix's that it was driving back: reading the tip as noise puts one of them against its
    /// course, which costs more than the turn round. A phone's course at driving speed is within a few degrees, so a
    /// road the car drives along costs next to nothing; a fix in mid-turn, 45 degrees off both roads, costs them the
    /// same (1.2).
    public var courseConcentration: Double = 4

    /// The likeliest road path for `trace`; skipped fixes (see above), fixes with no road in range and fixes passed
    /// by as outliers (`outlierCost`) get nil.
    public func match(_ trace: [Coordinate]) -> MapMatch {
        match(trace.map { TraceFix(coordinate: $0) })
    }

    /// The likeliest road path for `fixes`, each fix's course (when it has one) weighing for the roads driven its
    /// way (`courseConcentration`); skipped fixes, fixes with no road in range and fixes passed by as outliers get nil.
    public func match(_ fixes: [TraceFix]) -> MapMatch {
        let trace = fixes.map(\.coordinate)
        let tips = Self.turnsRound(fixes)
        var lastUsed: Coordinate?
        let candidates = trace.indices.map { index -> [RoadSnap] in
            let fix = trace[index]
            // The tip of a turn round is kept however near: it is the only fix that shows the way out.
            if let lastUsed, lastUsed.distance(to: fix) < 2 * sigma, !tips.contains(index) { return [] }
            let found = Array(router.snapper.candidates(near: fix, radius: candidateRadius).prefix(maxCandidates))
            if !found.isEmpty { lastUsed = fix }
            return found
        }
        // back[t][j] = the fix and candidate the best way to candidate j of fix t came from, with its road path;
        // nil at a chain start.
        var back: [[Link?]] = Array(repeating: [], count: trace.count)
        // Every matched fix's scores, so a chain that broke can be ended at its own best state.
        var history: [[Double]] = Array(repeating: [], count: trace.count)
        // The fixes with candidates so far, newest last: the model steps from the last, or passes it by from the one
        // before (never past a chain start).
        var matched: [Int] = []
        var chainStart = 0
        var breaks = 0
        var scratch = EdgeSearchScratch(edgeCount: router.graph.edgeCount)
        for (fix, options) in candidates.enumerated() where !options.isEmpty {
            let course = fixes[fix].course
            let emissions = options.map { option in
                var emission = -0.5 * (option.distance / sigma) * (option.distance / sigma)
                if let course {
                    let turn = Heading.shortestTurn(from: course, to: option.bearing) * .pi / 180
                    emission += courseConcentration * (cos(turn) - 1)
                }
                return emission
            }
            guard let previous = matched.last else {
                history[fix] = emissions
                back[fix] = Array(repeating: nil, count: options.count)
                matched.append(fix)
                continue
            }
            var next = [Double](repeating: -.infinity, count: options.count)
            var links = [Link?](repeating: nil, count: options.count)
            var sources = [(fix: previous, cost: 0.0)]
            if matched.count - 1 > chainStart { sources.append((matched[matched.count - 2], outlierCost)) }
            // The best score any candidate of this fix has so far: a path whose score falls `pruneMargin` below it is
            // not searched for (see `pruneMargin`).
            var best = -Double.infinity
            for source in sources {
                let sourceCourse = fixes[source.fix].course
                let fixes = trace[source.fix].distance(to: trace[fix])
                // The courses say the car turned round between the two fixes: the way on to where it turned and back
                // is what happened, not a detour to weigh against, as far as `turnRoundReach`. Fixes farther apart
                // than the way there and back may have a whole drive between them, round a block or a hairpin.
                var turnedRound = false
                if let sourceCourse, let course, fixes <= 2 * turnRoundReach {
                    turnedRound = abs(Heading.shortestTurn(from: sourceCourse, to: course)) > Self.courseReversalDegrees
                }
                // A drive longer than this is implausible between two fixes; bounds each search.
                let limit = fixes * 2 + 4 * candidateRadius + 200
                let scores = history[source.fix]
                // The likeliest candidates first: their paths set the bar the others' searches must reach.
                let order = scores.indices.filter { scores[$0] > -.infinity }.sorted {
                    scores[$0] > scores[$1] || (scores[$0] == scores[$1] && $0 < $1)
                }
                for i in order {
                    let from = candidates[source.fix][i]
                    var weighing = PathWeighing(
                        fixes: fixes, turnedRound: turnedRound, best: best, margin: pruneMargin,
                        straight: options.map { from.coordinate.distance(to: $0.coordinate) },
                        gain: emissions.map { scores[i] - source.cost + $0 }, floor: next)
                    let paths = shortestLengths(
                        from: from, to: options, limit: limit, scratch: &scratch, detailed: false,
                        weighing: &weighing)
                    best = weighing.best
                    for (j, path) in paths.enumerated() {
                        guard let path else { continue }
                        let score = weighing.score(of: path, end: j, matcher: self)
                        if score > next[j] {
                            next[j] = score
                            links[j] = Link(fix: source.fix, candidate: i, path: path, limit: limit)
                        }
                    }
                }
            }
            if next.allSatisfy({ $0 == -.infinity }) {
                breaks += 1
                next = emissions
                links = Array(repeating: nil, count: options.count)
                chainStart = matched.count
            }
            history[fix] = next
            back[fix] = links
            matched.append(fix)
        }
        return backtrack(candidates: candidates, history: history, back: back, matched: matched, breaks: breaks)
    }

    /// How far below the best score of a fix's candidates a path to one of them may score and still be searched for,
    /// as log-likelihood: 30 is a detour of 150 m at the default `beta`. A state that far behind needs the fixes after
    /// it to favour it by as much, more than passing a fix by costs (`outlierCost`); without the bound each search
    /// went on to its limit (twice the fixes' distance and 400 m) whenever a candidate of the next fix was the wrong
    /// way up a one-way arc or on the other carriageway, and that was most of the matcher's time.
    public var pruneMargin: Double = 30

    /// What `path` costs in the model, as log-likelihood: its detour over `straight` (or over the fixes' distance for
    /// a jitter step or a stretch against a one-way road), its turns round and its stretch against a one-way road.
    func cost(of path: LengthPath, straight: Double, fixes: Double, turnedRound: Bool) -> Double {
        let against =
            (path.againstOneWay ? againstOneWayCost / beta : 0) + Double(path.uTurns) * uTurnCost / beta
        // A jitter step or a stretch against a one-way road joins two positions of one road, whose straight line is
        // the path itself: the fixes' line is what tells them from a drive on.
        let line = path.length < 0 || path.againstOneWay ? fixes : straight
        let allowance = turnedRound && path.uTurns > 0 ? 2 * turnRoundReach : 0
        return max(0, abs(max(0, path.length) - line) - allowance) / beta + against
    }

    /// How far past the last fix of the way out a car whose courses reverse may have driven to turn round, in metres,
    /// without the way there and back weighing as a detour: a car turns at the first junction it can (8.6 m on, at
    /// the start of the 1,431 m trip). Unbounded, a fix of the way out near the start of a 98 m edge was matched as a
    /// drive to its far end and back, 187 m charged on a 1,643 m trip.
    public var turnRoundReach: Double = 25

    /// How far a fix's course must turn from the course of the fix with one before it for the car to have turned
    /// round between them, in degrees. A bend or a hairpin turns the course a few tens of degrees between two fixes a
    /// second apart; a turn round takes it the other way, 180 degrees. At 120, a course of 223 degrees between 38 and
    /// 97 (a car on a short link at a junction) read as two turns round: 28 m too many on a 1,457 m chaos trip.
    public static let courseReversalDegrees = 150.0

    /// The indices of the fixes whose course the next fix with a course reverses (by more than
    /// `courseReversalDegrees`): the last fix of the way out before each turn round.
    public static func turnsRound(_ fixes: [TraceFix]) -> Set<Int> {
        var tips = Set<Int>()
        var outbound: (index: Int, course: Double)?
        for (index, fix) in fixes.enumerated() {
            guard let course = fix.course else { continue }
            if let outbound, abs(Heading.shortestTurn(from: outbound.course, to: course)) > courseReversalDegrees {
                tips.insert(outbound.index)
            }
            outbound = (index, course)
        }
        return tips
    }

    /// A step of the best path: from candidate `candidate` of fix `fix`, along `path` (its length and turns, not its
    /// edges, which are found again for the steps kept), found within `limit` metres.
    struct Link: Hashable {
        var fix: Int
        var candidate: Int
        var path: LengthPath
        var limit: Double
    }

    private func backtrack(
        candidates: [[RoadSnap]], history: [[Double]], back: [[Link?]], matched: [Int], breaks: Int
    ) -> MapMatch {
        var chosen = [RoadSnap?](repeating: nil, count: candidates.count)
        func best(at fix: Int) -> Int { history[fix].indices.max { history[fix][$0] < history[fix][$1] } ?? 0 }
        guard var fix = matched.last else {
            return MapMatch(points: chosen, distance: 0, coordinates: [], edges: [], breaks: breaks)
        }
        // The last fix may be the outlier: the path may end at the one before, at the same cost as passing it by.
        if matched.count >= 2, back[fix].contains(where: { $0 != nil }) {
            let before = matched[matched.count - 2]
            if history[before][best(at: before)] - outlierCost > history[fix][best(at: fix)] { fix = before }
        }
        var pieces: [LengthPath] = []
        var index = best(at: fix)
        var scratch = EdgeSearchScratch(edgeCount: router.graph.edgeCount)
        while true {
            chosen[fix] = candidates[fix][index]
            guard let link = back[fix][index] else {
                // A chain start: the next earlier matched fix (if any) ends the previous chain at its best.
                guard let earlier = matched.last(where: { $0 < fix }) else { break }
                fix = earlier
                index = best(at: earlier)
                pieces.append(LengthPath(length: 0, edges: [], coordinates: []))
                continue
            }
            // The same search as the model's, so the same path, now with its edges.
            let found = shortestLengths(
                from: candidates[link.fix][link.candidate], to: [candidates[fix][index]], limit: link.limit,
                scratch: &scratch)
            pieces.append(found[0] ?? link.path)
            index = link.candidate
            fix = link.fix
        }
        var distance = 0.0
        var coordinates: [Coordinate] = []
        var edges: [Int] = []
        for piece in pieces.reversed() {
            distance += piece.length
            for coordinate in piece.coordinates where coordinate != coordinates.last { coordinates.append(coordinate) }
            for edge in piece.edges where edge != edges.last { edges.append(edge) }
        }
        return MapMatch(
            points: chosen, distance: max(0, distance), coordinates: coordinates, edges: edges, breaks: breaks)
    }

    /// A road path between two snapped positions, by length.
    struct LengthPath: Hashable {
        var length: Double
        var edges: [Int]
        var coordinates: [Coordinate]
        /// True for a stretch driven against a one-way road.
        var againstOneWay = false
        /// How many times the path turns round at a node (an edge followed by the same street the other way).
        var uTurns = 0
    }

    /// Shortest driving distances from `start` to each of `ends` (nil beyond `limit` metres or unreachable),
    /// by a Dijkstra bounded by `limit` whose labels live in `scratch`. Only a `detailed` search lists each path's
    /// edges and coordinates: the model weighs thousands of paths for each one it keeps, and building them all was
    /// a third of its time.
    func shortestLengths(
        from start: RoadSnap, to ends: [RoadSnap], limit: Double, scratch: inout EdgeSearchScratch,
        detailed: Bool = true
    ) -> [LengthPath?] {
        var weighing = PathWeighing.none
        return shortestLengths(
            from: start, to: ends, limit: limit, scratch: &scratch, detailed: detailed, weighing: &weighing)
    }

    /// As `shortestLengths(from:to:limit:scratch:detailed:)`, the search ending once no end it has not reached could
    /// still score within `weighing`'s reach: its floor, or the best score found less the margin.
    func shortestLengths(
        from start: RoadSnap, to ends: [RoadSnap], limit: Double, scratch: inout EdgeSearchScratch,
        detailed: Bool, weighing: inout PathWeighing
    ) -> [LengthPath?] {
        let graph = router.graph
        let startEdge = graph.edges[start.edge]
        var results = [LengthPath?](repeating: nil, count: ends.count)
        for (j, end) in ends.enumerated() {
            let endEdge = graph.edges[end.edge]
            if end.edge == start.edge && end.fraction >= start.fraction {
                results[j] = LengthPath(
                    length: (end.fraction - start.fraction) * startEdge.length, edges: [start.edge],
                    coordinates: [start.coordinate, end.coordinate])
                continue
            }
            // How far the end lies behind the start along the same road: on the same edge, or on the edge of
            // the same road just before it.
            var behind = Double.infinity
            if end.edge == start.edge {
                behind = (start.fraction - end.fraction) * startEdge.length
            } else if endEdge.target == startEdge.source && endEdge.road == startEdge.road
                && endEdge.source != startEdge.target
            {
                behind = start.fraction * startEdge.length + (1 - end.fraction) * endEdge.length
            }
            if behind <= backtrackTolerance {
                // Noise, not a U-turn. The negative length takes back the distance the jitter counted too
                // much, so the next step forward from this position is not counted twice.
                results[j] = LengthPath(length: -behind, edges: [start.edge], coordinates: [start.coordinate])
            } else if endEdge.road == startEdge.road, graph.road(ofEdge: start.edge).direction.isOneWay,
                let against = distanceAlongRoad(from: end, to: start, limit: limit), against > backtrackTolerance
            {
                // Two consecutive fixes going back along a one-way road: the car drove against it (a wrong
                // tag, or a driver breaking the rule). The only legal path is a loop round the block that the
                // fixes do not show, so the stretch is charged as driven; a legal path found below that is
                // shorter still wins.
                results[j] = LengthPath(
                    length: against, edges: end.edge == start.edge ? [start.edge] : [start.edge, end.edge],
                    coordinates: [start.coordinate, end.coordinate], againstOneWay: true)
            }
        }
        // The search runs over edges, not nodes: a car's next edge depends on the one it arrived on, and the
        // map's turn rules (a no-U-turn between two carriageways, a no-left-turn) are obeyed as the router
        // obeys them. A node search took such a turn where the car had to drive on and turn back further up,
        // and the fare lost the stretch (issue 14: 31 m of a 1,279 m Monaco trip).
        scratch.begin()
        let root = Int32(start.edge)
        scratch.label(root, length: (1 - start.fraction) * startEdge.length, from: -1, uTurns: 0)
        scratch.heap.push(scratch.length[start.edge], root)
        // An end is settled by the first arrival at its edge's start that may turn onto it: the nearest. One
        // ahead on the start edge is settled already.
        let endSources = ends.map { graph.edges[$0.edge].source }
        var unsettled = [Bool](repeating: false, count: ends.count)
        var remaining = 0
        for (j, end) in ends.enumerated() {
            if let found = results[j] { weighing.found(found, end: j, matcher: self) }
            if end.edge != start.edge || end.fraction < start.fraction {
                unsettled[j] = true
                remaining += 1
            }
        }
        // The search goes no farther than the farthest an end not yet reached could be worth reaching.
        var reach = min(limit, weighing.reach(unsettled: unsettled, matcher: self))
        while remaining > 0, let (key, arrived) = scratch.heap.pop() {
            if key > reach { break }
            guard scratch.settle(arrived) else { continue }
            let node = graph.edges[Int(arrived)].target
            var reached = false
            for j in ends.indices where unsettled[j] && endSources[j] == node {
                let end = ends[j]
                guard graph.allowsTurn(from: Int(arrived), to: end.edge) else { continue }
                unsettled[j] = false
                remaining -= 1
                reached = true
                let total = key + end.fraction * graph.edges[end.edge].length
                guard total <= limit, results[j] == nil || total < results[j]!.length else { continue }
                let turns = Int(scratch.uTurns[Int(arrived)]) + (graph.isReverse(end.edge, of: Int(arrived)) ? 1 : 0)
                let found =
                    detailed
                    ? path(arrivingOn: arrived, start: start, end: end, length: total, scratch: scratch)
                    : LengthPath(length: total, edges: [], coordinates: [], uTurns: turns)
                results[j] = found
                weighing.found(found, end: j, matcher: self)
            }
            if reached { reach = min(limit, weighing.reach(unsettled: unsettled, matcher: self)) }
            let arrivedTurns = scratch.uTurns[Int(arrived)]
            for edgeID in graph.outgoingEdges(of: node) where graph.allowsTurn(from: Int(arrived), to: edgeID) {
                let next = Int32(edgeID)
                let candidate = key + graph.edges[edgeID].length
                if candidate < scratch.lengthTo(next) {
                    let turns = arrivedTurns + (graph.isReverse(edgeID, of: Int(arrived)) ? 1 : 0)
                    scratch.label(next, length: candidate, from: arrived, uTurns: turns)
                    scratch.heap.push(candidate, next)
                }
            }
        }
        return results
    }

    /// Metres from `from` forward along its road to `to` (the same road all the way, never turning back),
    /// nil when `to` is not ahead on that road within `limit`.
    func distanceAlongRoad(from: RoadSnap, to: RoadSnap, limit: Double) -> Double? {
        let graph = router.graph
        if from.edge == to.edge {
            guard to.fraction >= from.fraction else { return nil }
            return (to.fraction - from.fraction) * graph.edges[from.edge].length
        }
        var edge = graph.edges[from.edge]
        var length = (1 - from.fraction) * edge.length
        // Bounded by the limit, and by a step count should a road's edges ever form a ring.
        for _ in 0..<1_000 where length <= limit {
            let turnBack = edge.source
            let road = edge.road
            guard
                let next = graph.outgoingEdges(of: edge.target).first(where: {
                    graph.edges[$0].road == road && graph.edges[$0].target != turnBack
                })
            else { return nil }
            if next == to.edge {
                let total = length + to.fraction * graph.edges[next].length
                return total <= limit ? total : nil
            }
            edge = graph.edges[next]
            length += edge.length
        }
        return nil
    }

    private func path(
        arrivingOn arrived: Int32, start: RoadSnap, end: RoadSnap, length: Double, scratch: EdgeSearchScratch
    )
        -> LengthPath
    {
        let graph = router.graph
        // Walk back to the start edge, the search's root, which never gets a parent.
        var edges: [Int] = []
        var current = arrived
        while current != Int32(start.edge), scratch.parent[Int(current)] >= 0 {
            edges.append(Int(current))
            current = scratch.parent[Int(current)]
        }
        edges.reverse()
        var coordinates = [start.coordinate, graph.coordinates[Int(graph.edges[start.edge].target)]]
        for edgeID in edges { coordinates.append(graph.coordinates[Int(graph.edges[edgeID].target)]) }
        coordinates.append(end.coordinate)
        let all = [start.edge] + edges + [end.edge]
        return LengthPath(length: length, edges: all, coordinates: coordinates, uTurns: graph.uTurns(in: all))
    }
}
