import HailCore

/// A directed road network: densely numbered nodes with coordinates and edges in CSR (compressed sparse row)
/// order, so a node's outgoing edges are one contiguous range of `edges`.
///
/// Edge ids are indices into `edges`. Build one with `RoadGraphBuilder`, `RoadGraph(extract:)` or
/// `GeneratedCity`.
public struct RoadGraph: Sendable {
    /// The position of each node.
    public let coordinates: [Coordinate]
    /// The source id of each node (the OSM node id, or the generated city's own number).
    public let nodeIDs: [Int64]
    /// Every directed edge, grouped by source node.
    public let edges: [RoadEdge]
    /// `edges[edgeStart[n]..<edgeStart[n + 1]]` leave node `n`; one entry more than there are nodes.
    public let edgeStart: [Int32]
    /// The attributes of each road, indexed by `RoadEdge.road`.
    public let roads: [RoadAttributes]
    /// The source id of each road (the OSM way id, or the generated street's number).
    public let roadIDs: [Int64]
    /// The length in metres of each road's segments in the graph.
    public let roadLengths: [Double]
    /// Segments the builder left out because a node was missing.
    public let skippedSegments: Int
    /// Turn rules, applied by the router (a car arriving on one road may not, or must, continue on another).
    public let turnRestrictions: [TurnRestriction]
    /// The rules at each node that has any, for the router's inner loop.
    let restrictionsAtNode: [Int32: [TurnRestriction]]
    /// The strongly connected component of each node, 0 being the largest: from any node of a component a
    /// car can reach every other node of it (turn rules aside). Islands are private yards, clipped edges of
    /// the extract, or tagging errors.
    public let componentIDs: [Int32]
    /// The fastest speed on any road, in m/s: the A* heuristic divides distance by it to stay admissible.
    public let maxSpeedMetersPerSecond: Double

    init(
        coordinates: [Coordinate], nodeIDs: [Int64], edges: [RoadEdge], edgeStart: [Int32], roads: [RoadAttributes],
        roadIDs: [Int64], roadLengths: [Double], skippedSegments: Int, turnRestrictions: [TurnRestriction]
    ) {
        self.turnRestrictions = turnRestrictions
        self.restrictionsAtNode = Dictionary(grouping: turnRestrictions, by: \.via)
        self.coordinates = coordinates
        self.nodeIDs = nodeIDs
        self.edges = edges
        self.edgeStart = edgeStart
        self.roads = roads
        self.roadIDs = roadIDs
        self.roadLengths = roadLengths
        self.skippedSegments = skippedSegments
        self.maxSpeedMetersPerSecond = roads.map(\.speedMetersPerSecond).max() ?? 1
        self.componentIDs = StronglyConnectedComponents.components(
            nodeCount: coordinates.count, edgeStart: edgeStart, targets: edges.map(\.target))
    }

    /// The number of nodes.
    public var nodeCount: Int { coordinates.count }

    /// The number of directed edges.
    public var edgeCount: Int { edges.count }

    /// The ids of the edges leaving `node`.
    public func outgoingEdges(of node: Int32) -> Range<Int> {
        Int(edgeStart[Int(node)])..<Int(edgeStart[Int(node) + 1])
    }

    /// The attributes of the road that `edge` belongs to.
    public func road(ofEdge edge: Int) -> RoadAttributes { roads[Int(edges[edge].road)] }

    /// The start and end coordinates of an edge.
    public func segment(ofEdge edge: Int) -> (start: Coordinate, end: Coordinate) {
        (coordinates[Int(edges[edge].source)], coordinates[Int(edges[edge].target)])
    }

    /// The compass bearing of an edge, from its source to its target.
    public func bearing(ofEdge edge: Int) -> Double {
        let (start, end) = segment(ofEdge: edge)
        return start.bearing(to: end)
    }

    /// True when both ends of `edge` lie in the largest strongly connected component.
    public func isInMainComponent(edge: Int) -> Bool {
        componentIDs[Int(edges[edge].source)] == 0 && componentIDs[Int(edges[edge].target)] == 0
    }

    /// True when `edge` is `other` driven the other way: the one followed by the other turns round.
    public func isReverse(_ edge: Int, of other: Int) -> Bool {
        let a = edges[edge]
        let b = edges[other]
        return a.source == b.target && a.target == b.source
    }

    /// How many times a car driving `edges` in order turns round: an edge followed by itself the other way.
    public func uTurns(in edges: [Int]) -> Int {
        zip(edges, edges.dropFirst()).filter { first, second in isReverse(second, of: first) }.count
    }

    /// True when a car arriving on edge `from` may continue onto edge `to` (which must leave `from`'s target).
    public func allowsTurn(from: Int, to: Int) -> Bool {
        let arriving = edges[from]
        guard let rules = restrictionsAtNode[arriving.target] else { return true }
        let leaving = edges[to].road
        for rule in rules where rule.fromRoad == arriving.road {
            switch rule.kind {
            case .prohibitive where rule.toRoad == leaving: return false
            case .mandatory where rule.toRoad != leaving: return false
            default: continue
            }
        }
        return true
    }

    /// Counts and lengths of the whole graph.
    public var summary: RoadGraphSummary {
        var summary = RoadGraphSummary(
            roadCount: 0, oneWayRoadCount: 0, roundaboutRoadCount: 0, tunnelRoadCount: 0, nodeCount: nodeCount,
            edgeCount: edgeCount, totalLength: 0, tunnelLength: 0, skippedSegments: skippedSegments)
        for (index, road) in roads.enumerated() {
            summary.roadCount += 1
            if road.direction.isOneWay { summary.oneWayRoadCount += 1 }
            if road.isRoundabout { summary.roundaboutRoadCount += 1 }
            if road.isTunnel {
                summary.tunnelRoadCount += 1
                summary.tunnelLength += roadLengths[index]
            }
            summary.totalLength += roadLengths[index]
        }
        return summary
    }
}
