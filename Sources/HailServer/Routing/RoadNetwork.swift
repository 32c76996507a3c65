import Foundation
import HailCore
import HailRoads

/// A loaded road graph with the router, snapper and matcher built over it once, shared by every request.
public struct RoadNetwork: Sendable {
    /// The graph.
    public let graph: RoadGraph
    /// A* routing with its snapping index.
    public let router: RoadRouter
    /// Map matching of whole traces (fare distance).
    public let matcher: MapMatcher

    /// Builds the indexes over `graph`.
    public init(graph: RoadGraph) {
        self.graph = graph
        router = RoadRouter(graph: graph)
        matcher = MapMatcher(router: router)
    }

    /// Reads and indexes an `.osm.pbf` file; throws the file or format error as it comes.
    public static func load(pbfPath path: String) throws -> RoadNetwork {
        RoadNetwork(graph: RoadGraph(extract: try OSMPBFReader.read(contentsOf: URL(fileURLWithPath: path))))
    }

    /// The network a setting names; nil for `.none`.
    public static func load(_ setting: RoadNetworkSetting) throws -> RoadNetwork? {
        switch setting {
        case .none: nil
        case .file(let path): try load(pbfPath: path)
        case .generatedCity(let seed): RoadNetwork(graph: GeneratedCity(seed: seed).graph)
        case .loaded(let network): network
        }
    }

    /// The road a fix is on: the nearest edge within `radius` metres, preferring one driven in the fix's
    /// direction when it has a heading; nil when no road is that near (a car park, a ferry).
    public func snap(_ coordinate: Coordinate, heading: Double?, radius: Double) -> RoadSnap? {
        router.snapper.snap(coordinate, heading: heading, radius: radius)
    }

    /// True when `snap` lies on the road of `previous`: its edge, or an edge that meets it at either end (the same
    /// street the other way, the next stretch of it, a street it joins). A road beside it that does not meet it is not.
    public func isOnRoad(of previous: RoadSnap, _ snap: RoadSnap) -> Bool {
        let edge = graph.edges[previous.edge]
        let other = graph.edges[snap.edge]
        let ends = [edge.source, edge.target]
        return snap.edge == previous.edge || ends.contains(other.source) || ends.contains(other.target)
    }

    /// `coordinate` put on the road of `previous` (`isOnRoad(of:_:)`), the nearest such point within `radius` metres
    /// (on a tie, `previous`'s own edge): where a car at rest is, on the road it was on. Nil when none is that near.
    public func snap(_ coordinate: Coordinate, onRoadOf previous: RoadSnap, radius: Double) -> RoadSnap? {
        router.snapper.candidates(near: coordinate, radius: radius)
            .filter { isOnRoad(of: previous, $0) }
            .min { ($0.distance, $0.edge == previous.edge ? 0 : 1) < ($1.distance, $1.edge == previous.edge ? 0 : 1) }
    }

    /// `coordinate` put on the road a car moving on from `previous` is on: the nearest point within `radius` metres on
    /// `previous`'s road (`isOnRoad(of:_:)`) that agrees with `heading` (within `headingTolerance` degrees) and that
    /// driving forward from `previous` reaches (`isReachable(from:to:)`) or that lies a little behind it
    /// (`isJitterBack(from:to:)`); nil when none does.
    public func snap(
        _ coordinate: Coordinate, heading: Double?, radius: Double, reachedFrom previous: RoadSnap,
        headingTolerance: Double = 60
    ) -> RoadSnap? {
        router.snapper.candidates(near: coordinate, radius: radius).first { candidate in
            guard
                heading.map({ abs(Heading.shortestTurn(from: $0, to: candidate.bearing)) <= headingTolerance }) ?? true,
                isOnRoad(of: previous, candidate)
            else { return false }
            return isReachable(from: previous, to: candidate) || isJitterBack(from: previous, to: candidate)
        }
    }

    /// True when `edge` is `other` or the same stretch of street driven the other way.
    public func isSameStretch(_ edge: Int, _ other: Int) -> Bool {
        edge == other || graph.isReverse(edge, of: other)
    }

    /// Whether driving forward from `start` reaches `end` within what a road path between two fixes may add to their
    /// straight line (`pathStretch`, `pathSlackMeters`).
    public func isReachable(from start: RoadSnap, to end: RoadSnap) -> Bool {
        let straight = start.coordinate.distance(to: end.coordinate)
        return distanceAhead(from: start, to: end, limit: Self.pathStretch * straight + Self.pathSlackMeters) != nil
    }

    /// Whether `current` lies a little behind `previous` on the road (up to `tolerance` metres, driving
    /// forward from `current` reaches `previous`): GPS noise, not a car reversing, so the rider's car is
    /// held where it was rather than moved back. The two may be on different edges: on real maps an edge
    /// ends every few metres (each OSM node), so a fix just behind one that had crossed a node is common.
    public func isJitterBack(from previous: RoadSnap, to current: RoadSnap, tolerance: Double = 16) -> Bool {
        if previous.edge == current.edge {
            guard current.fraction < previous.fraction else { return false }
            return (previous.fraction - current.fraction) * graph.edges[current.edge].length <= tolerance
        }
        return distanceAhead(from: current, to: previous, limit: tolerance) != nil
    }

    /// The road path between two snapped positions, start to end, for the rider's car to glide along; nil
    /// (the car then glides straight) when no route joins them or the route is not one a car between two
    /// consecutive fixes drives:
    /// - it turns back on itself (a U-turn at a node, or anywhere doubling back more than
    ///   `Self.doublingBackMeters` along the line from start to end): the gliding car would move backwards.
    ///   Such a route means a snap is on the wrong carriageway or a little behind the previous one, and a
    ///   car that did turn round is shown well enough by the straight glide between the two;
    /// - it is longer than `Self.pathStretch` times the straight line plus `Self.pathSlackMeters`: around a
    ///   block rather than along the street. A road between two fixes is at most about 1.41 times the
    ///   straight line round a right-angle corner, 1.57 round a hairpin; the slack absorbs the snaps' offsets.
    public func path(from start: RoadSnap, to end: RoadSnap) -> [Coordinate]? {
        pathRoute(from: start, to: end)?.coordinates
    }

    /// The road path of `path(from:to:)` as a route, with the edges the rider sees the car drive along.
    public func pathRoute(from start: RoadSnap, to end: RoadSnap) -> Route? {
        guard let route = router.route(from: [start], to: [end]), route.coordinates.count >= 2 else { return nil }
        let straight = start.coordinate.distance(to: end.coordinate)
        guard route.distance <= Self.pathStretch * straight + Self.pathSlackMeters else { return nil }
        guard graph.uTurns(in: route.edges) == 0, !doublesBack(route.coordinates, heading: start.bearing) else {
            return nil
        }
        return route
    }

    /// How much longer than the straight line a road path between two fixes may be (see `path`).
    public static let pathStretch = 1.6
    /// Metres a road path between two fixes may add to `pathStretch` times the straight line.
    public static let pathSlackMeters = 15.0
    /// Metres a road path may run back along the line from its start to its end (see `path`).
    public static let doublingBackMeters = 3.0

    /// True when `path` runs backwards along its own direction by more than `doublingBackMeters`: each
    /// point projected on the line from the first point to the last (or on `heading` when the two are a
    /// few metres apart) must not fall that far behind the farthest projection so far.
    private func doublesBack(_ path: [Coordinate], heading: Double) -> Bool {
        guard let first = path.first, let last = path.last else { return false }
        let metresPerDegree = Coordinate.earthRadiusMeters * .pi / 180
        let east = metresPerDegree * cos(first.lat * .pi / 180)
        func flat(_ point: Coordinate) -> (x: Double, y: Double) {
            ((point.lng - first.lng) * east, (point.lat - first.lat) * metresPerDegree)
        }
        var direction = flat(last)
        var length = (direction.x * direction.x + direction.y * direction.y).squareRoot()
        if length < 5 {
            direction = (sin(heading * .pi / 180), cos(heading * .pi / 180))
            length = 1
        }
        var farthest = 0.0
        for point in path.dropFirst() {
            let p = flat(point)
            let along = (p.x * direction.x + p.y * direction.y) / length
            if along < farthest - Self.doublingBackMeters { return true }
            farthest = max(farthest, along)
        }
        return false
    }

    /// The road distance driving forward from `start` to `end` when it is at most `limit` metres, else
    /// nil. A small search (a few edges at most) that never takes a U-turn.
    func distanceAhead(from start: RoadSnap, to end: RoadSnap, limit: Double) -> Double? {
        let first = graph.edges[start.edge]
        if start.edge == end.edge, end.fraction >= start.fraction {
            let ahead = (end.fraction - start.fraction) * first.length
            return ahead <= limit ? ahead : nil
        }
        // Edges reached, by the distance to their source; a handful, so a linear scan picks the nearest.
        var frontier: [(edge: Int, distance: Double)] = []
        var reached: [Int: Double] = [:]
        func reach(after arriving: Int, at distance: Double) {
            let edge = graph.edges[arriving]
            for next in graph.outgoingEdges(of: edge.target) where graph.allowsTurn(from: arriving, to: next) {
                guard !graph.isReverse(next, of: arriving) else { continue }
                guard distance <= limit, distance < reached[next] ?? .infinity else { continue }
                reached[next] = distance
                frontier.append((next, distance))
            }
        }
        reach(after: start.edge, at: (1 - start.fraction) * first.length)
        while let index = frontier.indices.min(by: { frontier[$0].distance < frontier[$1].distance }) {
            let (edge, distance) = frontier.remove(at: index)
            guard distance <= reached[edge] ?? .infinity else { continue }
            if edge == end.edge {
                let total = distance + end.fraction * graph.edges[edge].length
                if total <= limit { return total }
            }
            reach(after: edge, at: distance + graph.edges[edge].length)
        }
        return nil
    }

    /// The driven distance of a trace matched to the roads, or nil when the match is unusable: nothing
    /// matched, or a length outside half to twice the raw path's (a trace mostly off this map).
    ///
    /// The trace is matched on fixes at least `Self.fareSpacingMeters` apart (the first and the last always
    /// kept): a phone's fix a second lies 10-15 m from the last in town, and at that density the noise of
    /// each fix (4 m) is a third of the step, which the match charged as extra length, 2-3 % of a Monaco
    /// trip; at 25 m and more it charges the roads driven between them (issue 14, measured on the city's trips).
    /// A closer fix where the car turned back, more than `Self.fareTurnBackMeters` off the line between the fixes
    /// kept either side of it, stays too (see `spaced`).
    public func matchedDistance(_ trace: [Coordinate]) -> Double? {
        matchedDistance(trace.map { TraceFix(coordinate: $0) })
    }

    /// The driven distance of `fixes` matched to the roads, as `matchedDistance(_:)` on their coordinates, the fixes'
    /// courses weighing in the match (`MapMatcher.courseConcentration`) and showing where the car turned round.
    public func matchedDistance(_ fixes: [TraceFix]) -> Double? {
        guard fixes.count >= 2 else { return nil }
        let snapper = router.snapper
        let edges = router.graph.edges
        func roads(near point: Coordinate) -> Set<Int32> {
            Set(snapper.candidates(near: point, radius: Self.fareTurnBackRoadMeters).map { edges[$0.edge].road })
        }
        let match = matcher.match(
            Self.spaced(
                fixes, atLeast: Self.fareSpacingMeters, turningBackBeyond: Self.fareTurnBackMeters,
                backAlongItsRoad: { tip, before, after in
                    !roads(near: tip).intersection(roads(near: before)).isDisjoint(with: roads(near: after))
                }))
        let raw = fixes.map(\.coordinate).pathLength
        guard match.distance.isFinite, match.distance > 0, match.distance >= raw / 2, match.distance <= raw * 2 else {
            return nil
        }
        return match.distance
    }

    /// How far apart the fixes a fare is matched on are, at least.
    public static let fareSpacingMeters = 25.0
    /// How far off the line between the fixes kept either side a fix where the car turned back must lie to be kept
    /// (see `spaced`). A car that drives 20 m up the road from the pickup to turn round at the junction leaves a fix
    /// 14-23 m off. On a straight road with 4 m of noise, a fix that seems to turn back lies 15 m off at most once in
    /// two thousand fixes at 14 m/s, three in a thousand at 3 m/s (simulated). At 12 m, a noisy fix at the tip of a
    /// hairpin was kept and matched onto a side road, 25 m charged in and out of it. The stored fixes of 51 trips (two
    /// chaos runs and a dead-zones run) matched again: every trip without a lost tail within 2.2 % of its odometer
    /// at 12 m, 1.3 % at 15 m, 2.8 % with spacing alone.
    public static let fareTurnBackMeters = 15.0
    /// How near one road a fix that seems to turn back and the fixes kept either side of it must all lie for it to be
    /// kept as one: a car turns back along the road it drove out on, and the tip of a real turn back is a fix of a car
    /// on it, within the noise (4 m a side: 12 m or more away one fix in a hundred). On the 1,070 m trip of the stalls and
    /// dead-zones runs, noisy fixes 13-17 m off the road were kept as turn backs and matched onto a side road: +2.6 %
    /// and +5.7 %, +1.4 % and +2.8 % as spacing alone would charge.
    public static let fareTurnBackRoadMeters = 12.0

    /// `trace` without the fixes closer than `spacing` to the last one kept, except where the car turned back: a
    /// fix more than `turnBack` metres off the line between the fixes kept either side of it, from which the way on
    /// turns by more than a right angle from the way there, and which lies on ahead the way the car came to the
    /// fix kept before it, stays (found as Douglas and Peucker simplify a line) if `backAlongItsRoad` says it and the
    /// fixes kept either side of it lie on one road.
    /// The first and the last fix always stay.
    ///
    /// Spacing alone lost turns back: a car leaving the pickup facing away from the dropoff drives to the next
    /// junction, turns and comes back past where it started, and every fix of the 40 m out and back lies within
    /// 25 m of the first; the match then charged none of it (issue 14: 40 m of a 1,431 m trip, 42 m of 2,496 m).
    /// A fix off the line on a bend is not needed: the match follows the road round it. A fix behind the one kept
    /// before it, the way the car came, would be two turns back in a few seconds: two noisy fixes (14 and 17 m off
    /// on the 1,070 m trip of dead-zones) looked like that and were charged as 40 m out and back.
    static func spaced(
        _ trace: [Coordinate], atLeast spacing: Double, turningBackBeyond turnBack: Double = .infinity,
        backAlongItsRoad: (_ tip: Coordinate, _ before: Coordinate, _ after: Coordinate) -> Bool = { _, _, _ in true }
    ) -> [Coordinate] {
        spaced(
            trace.map { TraceFix(coordinate: $0) }, atLeast: spacing, turningBackBeyond: turnBack,
            backAlongItsRoad: backAlongItsRoad
        ).map(\.coordinate)
    }

    /// `fixes` thinned as `spaced(_:atLeast:turningBackBeyond:backAlongItsRoad:)` thins their coordinates, and where
    /// the fixes' courses show the car turned round (`courseReversals`), the tip stays too, however near the line.
    ///
    /// A car that drove 20 m up the street from the pickup, turned round at the junction and came back left a fix
    /// 12 m out and the next on the way back: within 15 m of the line, its tip went, and with it 40 m of a 1,431 m
    /// trip (issue 14). Its courses said east, then west.
    static func spaced(
        _ fixes: [TraceFix], atLeast spacing: Double, turningBackBeyond turnBack: Double = .infinity,
        backAlongItsRoad: (_ tip: Coordinate, _ before: Coordinate, _ after: Coordinate) -> Bool = { _, _, _ in true }
    ) -> [TraceFix] {
        let trace = fixes.map(\.coordinate)
        var kept: [Int] = []
        kept.reserveCapacity(trace.count)
        for index in trace.indices {
            if let last = kept.last, index < trace.count - 1, trace[last].distance(to: trace[index]) < spacing {
                continue
            }
            if let last = kept.last {
                let tips = turnsBack(
                    trace, between: last, and: index, cameFrom: kept.dropLast().last, beyond: turnBack
                ).filter { backAlongItsRoad(trace[$0], trace[last], trace[index]) }
                kept += Set(tips + courseReversals(fixes, between: last, and: index)).sorted()
            }
            kept.append(index)
        }
        return kept.map { fixes[$0] }
    }

    /// The indices strictly between `first` and `last` of the tips of the car's turns round that the fixes' courses
    /// show: where a fix's course turns from the last course before it by more than
    /// `MapMatcher.courseReversalDegrees`, the fix from the one with that course up to this one that lies farthest
    /// along that course (a car slowing to turn round leaves fixes with no course at the tip).
    static func courseReversals(_ fixes: [TraceFix], between first: Int, and last: Int) -> [Int] {
        guard last - first > 1 else { return [] }
        var tips: [Int] = []
        var outbound: (index: Int, course: Double)? = fixes[first].course.map { (first, $0) }
        for index in (first + 1)...last {
            guard let course = fixes[index].course else { continue }
            if let outbound,
                abs(Heading.shortestTurn(from: outbound.course, to: course)) > MapMatcher.courseReversalDegrees
            {
                let projection = LocalProjection(origin: fixes[outbound.index].coordinate)
                let radians = outbound.course * .pi / 180
                func along(_ fix: Int) -> Double {
                    let point = projection.point(fixes[fix].coordinate)
                    return point.x * sin(radians) + point.y * cos(radians)
                }
                let tip = (outbound.index..<index).max { along($0) < along($1) } ?? outbound.index
                if tip > first, tip < last { tips.append(tip) }
            }
            outbound = (index, course)
        }
        return tips
    }

    /// The indices strictly between `first` and `last` where the car turned back more than `tolerance` metres off
    /// the line joining the two, in order: the farthest, then those on the lines it makes with each end.
    private static func turnsBack(
        _ trace: [Coordinate], between first: Int, and last: Int, cameFrom previous: Int?, beyond tolerance: Double
    ) -> [Int] {
        guard last - first > 1 else { return [] }
        let projection = LocalProjection(origin: trace[first])
        let start = projection.point(trace[first])
        let end = projection.point(trace[last])
        let before = previous.map { projection.point(trace[$0]) }
        var farthest = first
        var distance = tolerance
        for index in (first + 1)..<last {
            let point = projection.point(trace[index])
            // The way on from the fix turns more than a right angle from the way there.
            var turnsBack = (point.x - start.x) * (end.x - point.x) + (point.y - start.y) * (end.y - point.y) < 0
            // And it lies on ahead of `first` the way the car came (see above).
            if let before, (point.x - start.x) * (start.x - before.x) + (point.y - start.y) * (start.y - before.y) < 0 {
                turnsBack = false
            }
            let off = projection.project(trace[index], ontoSegment: trace[first], trace[last]).squaredDistance
                .squareRoot()
            if turnsBack, off > distance {
                farthest = index
                distance = off
            }
        }
        guard farthest != first else { return [] }
        return turnsBack(trace, between: first, and: farthest, cameFrom: previous, beyond: tolerance) + [farthest]
            + turnsBack(trace, between: farthest, and: last, cameFrom: first, beyond: tolerance)
    }
}
