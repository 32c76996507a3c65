import HailCore

/// Fastest routes on a road graph by A*, with edge cost length / speed.
///
/// The heuristic is the great-circle distance to the destination divided by the graph's top speed. Edge
/// lengths are great-circle distances between their nodes, so the heuristic never overestimates and is
/// consistent: the first time the search settles a node, its time is final.
public struct RoadRouter: Sendable {
    /// The graph routed on.
    public let graph: RoadGraph
    /// The spatial index used to place coordinates on roads.
    public let snapper: RoadSnapper

    /// Node positions in metres on a plane, scaled so that plane distances never exceed great-circle ones.
    private let planar: [(x: Double, y: Double)]
    /// Metres per degree of longitude and latitude on that plane.
    private let planarScale: (x: Double, y: Double)

    /// Creates a router (and its spatial index) for `graph`.
    public init(graph: RoadGraph) {
        self.init(snapper: RoadSnapper(graph: graph))
    }

    /// Creates a router sharing an existing index.
    public init(snapper: RoadSnapper) {
        self.graph = snapper.graph
        self.snapper = snapper
        // The heuristic runs for every edge relaxed; a planar distance is far cheaper than a haversine.
        // Longitude is scaled at the graph's most poleward latitude, which shrinks east-west distances
        // everywhere else, and a 0.5% margin covers the plane-versus-sphere difference at city scale.
        let poleward = snapper.graph.coordinates.map { abs($0.lat) }.max() ?? 0
        let projection = LocalProjection(
            origin: Coordinate(lat: min(89, poleward), lng: 0))
        let scale = (x: projection.metersPerDegreeLng * 0.995, y: projection.metersPerDegreeLat * 0.995)
        planarScale = scale
        planar = snapper.graph.coordinates.map { ($0.lng * scale.x, $0.lat * scale.y) }
    }

    /// A lower bound in metres on the driving distance from `node` to `goal`.
    private func remaining(_ node: Int, _ goal: (x: Double, y: Double)) -> Double {
        let dx = planar[node].x - goal.x
        let dy = planar[node].y - goal.y
        return (dx * dx + dy * dy).squareRoot()
    }

    /// A point where a route may begin or end: a node, reached at a cost, through part of an edge.
    struct Anchor {
        var node: Int32
        var duration: Double
        var distance: Double
        var edge: Int?
        var point: Coordinate?
    }

    /// The fastest route between two nodes, or nil when `to` cannot be reached from `from`.
    public func route(fromNode from: Int32, toNode to: Int32) -> Route? {
        guard (0..<Int32(graph.nodeCount)).contains(from), (0..<Int32(graph.nodeCount)).contains(to) else { return nil }
        return search(
            sources: [Anchor(node: from, duration: 0, distance: 0)],
            targets: [Anchor(node: to, duration: 0, distance: 0)],
            goal: graph.coordinates[Int(to)], direct: nil)
    }

    /// The fastest route between two positions, each placed on the nearest road within `snapRadius` metres
    /// (heading-aware for the start when `heading` is given). Nil when either is off the map or unreachable.
    ///
    /// Only roads of the graph's main component are considered, unless `anyComponent` is set: a position
    /// beside a private yard or a clipped stub would otherwise snap where no route leads in or out.
    public func route(
        from start: Coordinate, to end: Coordinate, heading: Double? = nil, snapRadius: Double = 200,
        anyComponent: Bool = false
    ) -> Route? {
        func near(_ point: Coordinate) -> [RoadSnap] {
            let found = snapper.candidates(near: point, radius: snapRadius)
            return anyComponent ? found : found.filter { graph.isInMainComponent(edge: $0.edge) }
        }
        let startCandidates = near(start)
        let endCandidates = near(end)
        guard let first = RoadSnapper.mostPlausible(startCandidates, heading: heading),
            let last = endCandidates.first
        else { return nil }
        // Without a heading the car may leave either way along a two-way street: the other direction's
        // edge lies at the same distance. Likewise the destination may be reached from either side.
        let starts = heading == nil ? startCandidates.filter { $0.distance <= first.distance + 0.5 } : [first]
        let ends = endCandidates.filter { $0.distance <= last.distance + 0.5 }
        return route(from: starts, to: ends)
    }

    /// The fastest route from any of `starts` to any of `ends`, positions already on edges.
    public func route(from starts: [RoadSnap], to ends: [RoadSnap]) -> Route? {
        guard let goal = ends.first?.coordinate else { return nil }
        var sources: [Anchor] = []
        var targets: [Anchor] = []
        var direct: (Route)?
        for start in starts {
            let edge = graph.edges[start.edge]
            let rest = 1 - start.fraction
            sources.append(
                Anchor(
                    node: edge.target, duration: rest * edge.duration, distance: rest * edge.length, edge: start.edge,
                    point: start.coordinate))
            // Start and end on the same edge, end ahead of start: drive straight along it.
            for end in ends where end.edge == start.edge && end.fraction >= start.fraction {
                let part = end.fraction - start.fraction
                let candidate = Route(
                    distance: part * edge.length, duration: part * edge.duration,
                    coordinates: [start.coordinate, end.coordinate], edges: [start.edge],
                    times: [0, part * edge.duration])
                if direct == nil || candidate.duration < direct!.duration { direct = candidate }
            }
        }
        for end in ends {
            let edge = graph.edges[end.edge]
            targets.append(
                Anchor(
                    node: edge.source, duration: end.fraction * edge.duration, distance: end.fraction * edge.length,
                    edge: end.edge, point: end.coordinate))
        }
        return search(sources: sources, targets: targets, goal: goal, direct: direct)
    }

    /// Edge-based A*: a state is "arrived at the target of edge e", so turn rules between the arriving and
    /// the leaving edge can be checked. Costs and the heuristic are those of the node-based search.
    private func search(sources: [Anchor], targets: [Anchor], goal: Coordinate, direct: Route?) -> Route? {
        let count = graph.edgeCount
        let inverseSpeed = 1 / graph.maxSpeedMetersPerSecond
        let goalPoint = (x: goal.lng * planarScale.x, y: goal.lat * planarScale.y)
        var time = [Double](repeating: .infinity, count: count)
        var distance = [Double](repeating: 0, count: count)
        // The edge before each edge on the best way to it; -1 - k when it is where source anchor k starts.
        var parent = [Int32](repeating: Int32.min, count: count)
        var settled = [Bool](repeating: false, count: count)
        var heap = MinHeap()
        var best = direct?.duration ?? .infinity
        var bestEnd: (target: Int, edge: Int?)?
        func seed(_ edge: Int, _ duration: Double, _ length: Double, _ anchor: Int) {
            guard duration < time[edge] else { return }
            time[edge] = duration
            distance[edge] = length
            parent[edge] = -1 - Int32(anchor)
            heap.push(duration + remaining(Int(graph.edges[edge].target), goalPoint) * inverseSpeed, Int32(edge))
        }
        for (index, source) in sources.enumerated() {
            if let edge = source.edge {
                seed(edge, source.duration, source.distance, index)
                continue
            }
            // Starting on a node: the end may be right here, or the car leaves by any edge.
            for (targetIndex, target) in targets.enumerated()
            where target.node == source.node && source.duration + target.duration < best {
                best = source.duration + target.duration
                bestEnd = (targetIndex, nil)
            }
            for edge in graph.outgoingEdges(of: source.node) {
                seed(edge, source.duration + graph.edges[edge].duration, graph.edges[edge].length, index)
            }
        }
        let targetNodes = targets.map(\.node)
        while let (key, state) = heap.pop() {
            if key >= best { break }
            let current = Int(state)
            // A stale heap entry: the edge was settled through a faster push (the heuristic is consistent).
            if settled[current] { continue }
            settled[current] = true
            let arrived = graph.edges[current]
            let stateTime = time[current]
            // A few target anchors at most (both directions of a street): a scan beats a hash per state.
            for index in targetNodes.indices
            where targetNodes[index] == arrived.target && stateTime + targets[index].duration < best {
                if let last = targets[index].edge, !graph.allowsTurn(from: current, to: last) { continue }
                best = stateTime + targets[index].duration
                bestEnd = (index, current)
            }
            for next in graph.outgoingEdges(of: arrived.target) where graph.allowsTurn(from: current, to: next) {
                let edge = graph.edges[next]
                let candidate = stateTime + edge.duration
                guard candidate < time[next] else { continue }
                time[next] = candidate
                distance[next] = distance[current] + edge.length
                parent[next] = state
                heap.push(candidate + remaining(Int(edge.target), goalPoint) * inverseSpeed, Int32(next))
            }
        }
        guard let bestEnd else { return direct }
        let target = targets[bestEnd.target]
        var chain: [Int] = []
        var sourceIndex: Int
        if let last = bestEnd.edge {
            var edge = last
            while true {
                chain.append(edge)
                let previous = parent[edge]
                if previous < 0 {
                    sourceIndex = Int(-1 - previous)
                    break
                }
                edge = Int(previous)
            }
            chain.reverse()
        } else {
            sourceIndex = sources.firstIndex { $0.edge == nil && $0.node == target.node } ?? 0
        }
        let source = sources[sourceIndex]
        // The clock starts at the source position; a state's time already includes the source's offset.
        var coordinates: [Coordinate] = [source.point ?? graph.coordinates[Int(source.node)]]
        var times: [Double] = [0]
        for edge in chain {
            coordinates.append(graph.coordinates[Int(graph.edges[edge].target)])
            times.append(time[edge])
        }
        var edges = chain
        if let edge = target.edge, let point = target.point {
            edges.append(edge)
            coordinates.append(point)
            times.append(best)
        }
        // A snap at the very end of an edge repeats its node; drop the duplicate point.
        var path: [Coordinate] = []
        var pathTimes: [Double] = []
        for (coordinate, at) in zip(coordinates, times) where coordinate != path.last {
            path.append(coordinate)
            pathTimes.append(at)
        }
        let travelled = bestEnd.edge.map { distance[$0] } ?? source.distance
        return Route(
            distance: travelled + target.distance, duration: best, coordinates: path, edges: edges, times: pathTimes)
    }
}
