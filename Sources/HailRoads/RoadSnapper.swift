import HailCore

/// Finds the roads near a position through a uniform grid over the edges' bounding boxes.
///
/// Each directed edge is listed in every cell its bounding box touches, so a two-way street appears
/// twice (once per direction): heading-aware snapping then chooses the direction the car is driving.
public struct RoadSnapper: Sendable {
    /// The graph whose edges are indexed.
    public let graph: RoadGraph
    /// The side of a grid cell in metres (the size asked for, doubled until the grid is small enough).
    public let cellSize: Double
    private let projection: LocalProjection
    private let columns: Int
    private let rows: Int
    private let cellStart: [Int32]
    private let cellEdges: [Int32]

    /// Indexes `graph` with cells of about `cellSize` metres; the graph's coordinates must be valid.
    public init(graph: RoadGraph, cellSize: Double = 100) {
        self.graph = graph
        var minLat = Double.infinity
        var minLng = Double.infinity
        var maxLat = -Double.infinity
        var maxLng = -Double.infinity
        for coordinate in graph.coordinates where coordinate.lat.isFinite && coordinate.lng.isFinite {
            minLat = min(minLat, coordinate.lat)
            minLng = min(minLng, coordinate.lng)
            maxLat = max(maxLat, coordinate.lat)
            maxLng = max(maxLng, coordinate.lng)
        }
        if !minLat.isFinite { (minLat, minLng, maxLat, maxLng) = (0, 0, 0, 0) }
        let projection = LocalProjection(origin: Coordinate(lat: minLat, lng: minLng))
        self.projection = projection
        let far = projection.point(Coordinate(lat: maxLat, lng: maxLng))
        // Cells grow for a graph the size of a country, so the grid stays within about 4 million cells.
        var size = max(1, cellSize)
        while (far.x / size + 1) * (far.y / size + 1) > 4_000_000 { size *= 2 }
        self.cellSize = size
        columns = Int(far.x / size) + 1
        rows = Int(far.y / size) + 1
        var cellsOfEdge: [(cell: Int, edge: Int32)] = []
        cellsOfEdge.reserveCapacity(graph.edgeCount * 2)
        for (index, edge) in graph.edges.enumerated() {
            let a = projection.point(graph.coordinates[Int(edge.source)])
            let b = projection.point(graph.coordinates[Int(edge.target)])
            // A non-finite coordinate (from a careless builder) cannot be placed in a cell; leave it out.
            guard a.x.isFinite, a.y.isFinite, b.x.isFinite, b.y.isFinite else { continue }
            let columnRange = Self.cellRange(min(a.x, b.x), max(a.x, b.x), size, columns)
            let rowRange = Self.cellRange(min(a.y, b.y), max(a.y, b.y), size, rows)
            for row in rowRange {
                for column in columnRange { cellsOfEdge.append((row * columns + column, Int32(index))) }
            }
        }
        var start = [Int32](repeating: 0, count: columns * rows + 1)
        for entry in cellsOfEdge { start[entry.cell + 1] += 1 }
        for index in 1..<start.count { start[index] += start[index - 1] }
        var next = start
        var edges = [Int32](repeating: 0, count: cellsOfEdge.count)
        for entry in cellsOfEdge {
            edges[Int(next[entry.cell])] = entry.edge
            next[entry.cell] += 1
        }
        cellStart = start
        cellEdges = edges
    }

    private static func cellRange(_ low: Double, _ high: Double, _ size: Double, _ count: Int) -> ClosedRange<Int> {
        let first = min(count - 1, max(0, Int((low / size).rounded(.down))))
        let last = min(count - 1, max(0, Int((high / size).rounded(.down))))
        return first...max(first, last)
    }

    /// Every edge within `radius` metres of `coordinate`, nearest first (ties by edge id).
    public func candidates(near coordinate: Coordinate, radius: Double) -> [RoadSnap] {
        guard graph.edgeCount > 0, radius >= 0 else { return [] }
        let p = projection.point(coordinate)
        // A query wholly outside the grid touches no cell; clamping would wrongly scan the border.
        guard p.x + radius >= 0, p.y + radius >= 0, p.x - radius < Double(columns) * cellSize,
            p.y - radius < Double(rows) * cellSize
        else { return [] }
        let columnRange = Self.cellRange(p.x - radius, p.x + radius, cellSize, columns)
        let rowRange = Self.cellRange(p.y - radius, p.y + radius, cellSize, rows)
        var seen = Set<Int32>()
        var found: [RoadSnap] = []
        let radiusSquared = radius * radius
        for row in rowRange {
            for column in columnRange {
                let cell = row * columns + column
                for slot in Int(cellStart[cell])..<Int(cellStart[cell + 1]) {
                    let edge = cellEdges[slot]
                    guard seen.insert(edge).inserted else { continue }
                    let (start, end) = graph.segment(ofEdge: Int(edge))
                    let projected = projection.project(coordinate, ontoSegment: start, end)
                    guard projected.squaredDistance <= radiusSquared else { continue }
                    let point = start.interpolated(to: end, fraction: projected.fraction)
                    found.append(
                        RoadSnap(
                            edge: Int(edge), coordinate: point, fraction: projected.fraction,
                            distance: projected.squaredDistance.squareRoot(), bearing: start.bearing(to: end)))
                }
            }
        }
        found.sort { ($0.distance, $0.edge) < ($1.distance, $1.edge) }
        return found
    }

    /// The most plausible road for a position: the nearest edge within `radius` metres, preferring
    /// edges whose driving direction is within `headingTolerance` degrees of `heading` when one is given.
    ///
    /// Because edges are directed, a fix heading against a one-way street does not match it: it goes to
    /// another road in range if there is one, and only falls back to the nearest edge when none agrees.
    public func snap(
        _ coordinate: Coordinate, heading: Double? = nil, radius: Double = 50, headingTolerance: Double = 60
    ) -> RoadSnap? {
        Self.mostPlausible(
            candidates(near: coordinate, radius: radius), heading: heading, headingTolerance: headingTolerance)
    }

    /// The first of `candidates` (nearest first) that agrees with `heading`, else the first.
    public static func mostPlausible(
        _ candidates: [RoadSnap], heading: Double?, headingTolerance: Double = 60
    ) -> RoadSnap? {
        guard let heading else { return candidates.first }
        return candidates.first { abs(Heading.shortestTurn(from: heading, to: $0.bearing)) <= headingTolerance }
            ?? candidates.first
    }
}
