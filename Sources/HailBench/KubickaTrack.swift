import Foundation
import HailCore
import HailRoads

/// One track of the Kubicka et al. (2015) map-matching data set (zenodo record 57731): a real drive, the small map
/// around it and the route the car truly took, as arc ids of that map.
///
/// The files of a track folder `N/`: `N.nodes` (lon TAB lat, a node a line), `N.arcs` (from TAB to, 0-based node
/// lines; an arc's id is its 0-based line), `N.track` (lon TAB lat TAB seconds) and `N.route` (arc ids in driving
/// order). Every arc is a one-way road of its own: a two-way street is two arcs.
public struct KubickaTrack: Sendable {
    /// The track's name, its folder's.
    public let name: String
    /// The map, each arc a one-way road whose `RoadGraph.roadIDs` entry is the arc's id.
    public let graph: RoadGraph
    /// The graph's edge of each arc (nil for an arc from a node to itself, which has nothing to drive).
    public let edgeOfArc: [Int?]
    /// The fixes in time order.
    public let fixes: [Coordinate]
    /// Each fix's time in seconds.
    public let seconds: [Double]
    /// The ground-truth route, arc ids in driving order.
    public let route: [Int]

    /// Parses a track from its files' texts; `name` names it in errors and reports.
    public init(name: String, nodes: String, arcs: String, track: String, route: String) throws(BenchError) {
        self.name = name
        var builder = RoadGraphBuilder()
        let nodeRows = try Self.rows(nodes, columns: 2, file: "\(name).nodes")
        for row in nodeRows { builder.addNode(Coordinate(lat: row[1], lng: row[0])) }
        let arcRows = try Self.rows(arcs, columns: 2, file: "\(name).arcs")
        let attributes = RoadAttributes(roadClass: .residential, speedKmh: 30, direction: .forward)
        for (arc, row) in arcRows.enumerated() {
            let ends = row.map { Int32(exactly: $0) ?? -1 }
            guard ends.allSatisfy({ $0 >= 0 && Int($0) < nodeRows.count }) else {
                throw BenchError("\(name).arcs line \(arc + 1): no node \(row[0]) or \(row[1])")
            }
            builder.addRoad(nodes: ends, attributes: attributes, id: Int64(arc))
        }
        graph = builder.build()
        var edgeOfArc = [Int?](repeating: nil, count: arcRows.count)
        for (edge, roadEdge) in graph.edges.enumerated() { edgeOfArc[Int(graph.roadIDs[Int(roadEdge.road)])] = edge }
        self.edgeOfArc = edgeOfArc
        let trackRows = try Self.rows(track, columns: 3, file: "\(name).track")
        fixes = trackRows.map { Coordinate(lat: $0[1], lng: $0[0]) }
        seconds = trackRows.map { $0[2] }
        self.route = try Self.rows(route, columns: 1, file: "\(name).route").enumerated().map {
            (line, row) throws(BenchError) -> Int in
            guard let arc = Int(exactly: row[0]), arc >= 0, arc < arcRows.count else {
                throw BenchError("\(name).route line \(line + 1): no arc \(row[0])")
            }
            return arc
        }
        if fixes.isEmpty { throw BenchError("\(name).track has no fixes") }
        if self.route.isEmpty { throw BenchError("\(name).route has no arcs") }
    }

    /// Reads the track in `folder` (named after it: `folder/N.nodes` and so on).
    public static func read(folder: URL) throws(BenchError) -> KubickaTrack {
        let name = folder.lastPathComponent
        func text(_ suffix: String) throws(BenchError) -> String {
            let path = folder.appendingPathComponent("\(name).\(suffix)").path
            guard let data = FileManager.default.contents(atPath: path) else {
                throw BenchError("cannot read \(path)")
            }
            return String(decoding: data, as: UTF8.self)
        }
        return try KubickaTrack(
            name: name, nodes: try text("nodes"), arcs: try text("arcs"), track: try text("track"),
            route: try text("route"))
    }

    /// Every track folder in `directory` (a folder holding `N/N.track`), by name; throws when there is none.
    public static func readAll(directory: URL) throws(BenchError) -> [KubickaTrack] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else {
            throw BenchError.invalidOption("--kubicka: cannot list '\(directory.path)'")
        }
        let folders = names.sorted().filter {
            FileManager.default.fileExists(atPath: directory.appendingPathComponent("\($0)/\($0).track").path)
        }
        guard !folders.isEmpty else {
            throw BenchError.invalidOption("--kubicka: no track folder (N/N.track) in '\(directory.path)'")
        }
        var tracks: [KubickaTrack] = []
        for folder in folders { tracks.append(try read(folder: directory.appendingPathComponent(folder))) }
        return tracks
    }

    /// The numbers of each non-blank line of `text`, which must have `columns` of them (tab or space separated).
    private static func rows(_ text: String, columns: Int, file: String) throws(BenchError) -> [[Double]] {
        var rows: [[Double]] = []
        for (line, content) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = content.split(whereSeparator: { $0 == "\t" || $0 == " " || $0 == "\r" })
            if fields.isEmpty { continue }
            let numbers = fields.compactMap { Double($0) }
            guard numbers.count == columns, fields.count == columns, numbers.allSatisfy(\.isFinite) else {
                throw BenchError("\(file) line \(line + 1): expected \(columns) numbers, got '\(content)'")
            }
            rows.append(numbers)
        }
        return rows
    }
}
