import HailCore

/// Collects nodes and roads, then lays them out as a `RoadGraph` with CSR adjacency.
public struct RoadGraphBuilder: Sendable {
    private var coordinates: [Coordinate] = []
    private var nodeIDs: [Int64] = []
    private var edges: [RoadEdge] = []
    private var roads: [RoadAttributes] = []
    private var roadIDs: [Int64] = []
    private var roadLengths: [Double] = []
    private var skippedSegments = 0
    private var turnRestrictions: [TurnRestriction] = []

    /// Creates an empty builder.
    public init() {}

    /// Adds a node (with its source id, the OSM node id; its dense index when nil) and returns its dense index.
    @discardableResult
    public mutating func addNode(_ coordinate: Coordinate, id: Int64? = nil) -> Int32 {
        nodeIDs.append(id ?? Int64(coordinates.count))
        coordinates.append(coordinate)
        return Int32(coordinates.count - 1)
    }

    /// Adds a road through `nodes` (indices from `addNode`), with edges in the directions it allows.
    ///
    /// A node index of -1 marks a node missing from the source; segments touching it are skipped and
    /// counted. A road left with no segment is not added. Returns the road's index, or nil.
    @discardableResult
    public mutating func addRoad(nodes: [Int32], attributes: RoadAttributes, id: Int64) -> Int32? {
        let roadIndex = Int32(roads.count)
        var length = 0.0
        var added = false
        for index in nodes.indices.dropFirst() {
            let from = nodes[index - 1]
            let to = nodes[index]
            guard from >= 0, to >= 0, Int(from) < coordinates.count, Int(to) < coordinates.count else {
                skippedSegments += 1
                continue
            }
            // A repeated node (a way that doubles back on itself) is a zero-length loop; nothing to drive.
            if from == to { continue }
            let segmentLength = coordinates[Int(from)].distance(to: coordinates[Int(to)])
            let duration = segmentLength / attributes.speedMetersPerSecond
            length += segmentLength
            added = true
            if attributes.direction != .backward {
                edges.append(
                    RoadEdge(source: from, target: to, road: roadIndex, length: segmentLength, duration: duration))
            }
            if attributes.direction != .forward {
                edges.append(
                    RoadEdge(source: to, target: from, road: roadIndex, length: segmentLength, duration: duration))
            }
        }
        guard added else { return nil }
        roads.append(attributes)
        roadIDs.append(id)
        roadLengths.append(length)
        return roadIndex
    }

    /// Adds a turn rule; `build()` keeps it only when both roads exist and touch its node.
    public mutating func addTurnRestriction(_ restriction: TurnRestriction) {
        turnRestrictions.append(restriction)
    }

    /// The rules whose roads both have a segment at the via node; any other can never apply.
    private func applicableRestrictions() -> [TurnRestriction] {
        let vias = Set(turnRestrictions.map(\.via))
        var touching = Set<[Int32]>()
        for edge in edges {
            if vias.contains(edge.source) { touching.insert([edge.road, edge.source]) }
            if vias.contains(edge.target) { touching.insert([edge.road, edge.target]) }
        }
        return turnRestrictions.filter {
            touching.contains([$0.fromRoad, $0.via]) && touching.contains([$0.toRoad, $0.via])
        }
    }

    /// The finished graph: edges sorted by source node (stable, so insertion order breaks ties).
    public func build() -> RoadGraph {
        var counts = [Int32](repeating: 0, count: coordinates.count + 1)
        for edge in edges { counts[Int(edge.source) + 1] += 1 }
        for index in 1..<counts.count { counts[index] += counts[index - 1] }
        var next = counts
        var sorted = edges
        for edge in edges {
            sorted[Int(next[Int(edge.source)])] = edge
            next[Int(edge.source)] += 1
        }
        return RoadGraph(
            coordinates: coordinates, nodeIDs: nodeIDs, edges: sorted, edgeStart: counts, roads: roads,
            roadIDs: roadIDs,
            roadLengths: roadLengths, skippedSegments: skippedSegments,
            turnRestrictions: applicableRestrictions())
    }
}
