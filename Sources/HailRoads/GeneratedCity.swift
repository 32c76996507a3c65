import HailCore

/// A small made-up city for tests and the demo, the same for the same seed.
///
/// Layout, `columns` x `rows` intersections `blockMeters` apart around `center`:
/// - avenues run north-south (primary, 50 km/h, two-way);
/// - streets run east-west (residential, 30 km/h); every odd street is one-way, alternately eastbound
///   (rows 1, 5, 9...) and westbound (rows 3, 7...);
/// - a ring road (trunk, 70 km/h, two-way) one block outside the grid, which every avenue and street joins;
/// - the middle avenue dives into a tunnel between rows 2 and 5, passing under rows 3 and 4 without
///   meeting them.
/// The seed moves each intersection by up to 10% of a block and sets a few streets' speed to 20 or 40 km/h,
/// so distances are not all round numbers while staying reproducible.
public struct GeneratedCity: Sendable {
    /// The road graph.
    public let graph: RoadGraph
    /// Intersections per row (avenues).
    public let columns: Int
    /// Intersections per column (streets).
    public let rows: Int
    /// The grid intersections, row-major: `gridNodes[row * columns + column]`.
    public let gridNodes: [Int32]

    /// Builds the city for `seed`; `columns` and `rows` are at least 3.
    public init(
        seed: UInt64, columns: Int = 8, rows: Int = 8, blockMeters: Double = 150,
        center: Coordinate = Coordinate(lat: 43.7384, lng: 7.4246)
    ) {
        let columns = max(3, columns)
        let rows = max(3, rows)
        self.columns = columns
        self.rows = rows
        var random = SplitMix64(seed: seed)
        let projection = LocalProjection(origin: center)
        func place(_ column: Double, _ row: Double, jitter: Bool) -> Coordinate {
            var x = (column - Double(columns - 1) / 2) * blockMeters
            var y = (row - Double(rows - 1) / 2) * blockMeters
            if jitter {
                x += random.signedUnit() * blockMeters * 0.1
                y += random.signedUnit() * blockMeters * 0.1
            }
            return Coordinate(
                lat: center.lat + y / projection.metersPerDegreeLat, lng: center.lng + x / projection.metersPerDegreeLng
            )
        }
        var builder = RoadGraphBuilder()
        var grid: [Int32] = []
        for row in 0..<rows {
            for column in 0..<columns { grid.append(builder.addNode(place(Double(column), Double(row), jitter: true))) }
        }
        // The ring: one node where each avenue or street meets it, plus the four corners, anticlockwise.
        var ring: [Int32] = []
        var south: [Int32] = []
        var north: [Int32] = []
        var west: [Int32] = []
        var east: [Int32] = []
        for column in -1...columns {
            south.append(builder.addNode(place(Double(column), -1, jitter: false)))
        }
        for row in 0...rows { east.append(builder.addNode(place(Double(columns), Double(row), jitter: false))) }
        for column in stride(from: columns - 1, through: -1, by: -1) {
            north.append(builder.addNode(place(Double(column), Double(rows), jitter: false)))
        }
        for row in stride(from: rows - 1, through: 0, by: -1) {
            west.append(builder.addNode(place(-1, Double(row), jitter: false)))
        }
        ring = south + east + north + west + [south[0]]
        var roadID: Int64 = 0
        func add(_ nodes: [Int32], _ attributes: RoadAttributes) {
            roadID += 1
            builder.addRoad(nodes: nodes, attributes: attributes, id: roadID)
        }
        add(ring, RoadAttributes(roadClass: .trunk, speedKmh: 70, name: "Ring Road"))
        let tunnelAvenue = columns / 2
        for column in 0..<columns {
            // South ring node for column c is south[c + 1]; the north list runs east to west.
            let bottom = south[column + 1]
            let top = north[columns - 1 - column]
            let avenue = (0..<rows).map { grid[$0 * columns + column] }
            let attributes = RoadAttributes(roadClass: .primary, speedKmh: 50, name: "Avenue \(column + 1)")
            if column == tunnelAvenue && rows >= 6 {
                add([bottom] + avenue[0...2], attributes)
                var tunnel = attributes
                tunnel.isTunnel = true
                tunnel.name = "Avenue \(column + 1) Tunnel"
                // Own nodes under rows 3 and 4: the tunnel does not meet the streets above it.
                let under = [3.0, 4.0].map { builder.addNode(place(Double(column), $0, jitter: false)) }
                add([avenue[2]] + under + [avenue[5]], tunnel)
                add(Array(avenue[5...]) + [top], attributes)
            } else {
                add([bottom] + avenue + [top], attributes)
            }
        }
        for row in 0..<rows {
            let westEnd = west[rows - 1 - row]
            let eastEnd = east[row + 1]
            let street = (0..<columns).map { grid[row * columns + $0] }
            let direction: RoadDirection = row % 2 == 0 ? .both : (row % 4 == 1 ? .forward : .backward)
            let speeds: [Double] = [30, 30, 30, 20, 40]
            let speed = speeds[Int(random.next() % UInt64(speeds.count))]
            add(
                [westEnd] + street + [eastEnd],
                RoadAttributes(
                    roadClass: .residential, speedKmh: speed, direction: direction, name: "Street \(row + 1)"))
        }
        graph = builder.build()
        gridNodes = grid
    }

    /// The graph node at a grid intersection.
    public func node(column: Int, row: Int) -> Int32 { gridNodes[row * columns + column] }
}
