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

    /// Whether `current` lies a little behind `previous` on the same edge (up to `tolerance` metres):
    /// GPS noise, not a car reversing, so the rider's car is held where it was rather than moved back.
    public func isJitterBack(from previous: RoadSnap, to current: RoadSnap, tolerance: Double = 16) -> Bool {
        guard previous.edge == current.edge, current.fraction < previous.fraction else { return false }
        return (previous.fraction - current.fraction) * graph.edges[current.edge].length <= tolerance
    }

    /// The road path between two snapped positions, start to end, or nil when no route joins them or the
    /// route is so much longer than the straight line (more than twice it plus 100 m) that one of the
    /// snaps is likely wrong; the rider's car then glides straight rather than around a block.
    public func path(from start: RoadSnap, to end: RoadSnap) -> [Coordinate]? {
        guard let route = router.route(from: [start], to: [end]), route.coordinates.count >= 2 else { return nil }
        guard route.distance <= 2 * start.coordinate.distance(to: end.coordinate) + 100 else { return nil }
        return route.coordinates
    }

    /// The driven distance of a trace matched to the roads, or nil when the match is unusable: nothing
    /// matched, or a length outside half to twice the raw path's (a trace mostly off this map).
    public func matchedDistance(_ trace: [Coordinate]) -> Double? {
        guard trace.count >= 2 else { return nil }
        let match = matcher.match(trace)
        let raw = trace.pathLength
        guard match.distance.isFinite, match.distance > 0, match.distance >= raw / 2, match.distance <= raw * 2 else {
            return nil
        }
        return match.distance
    }
}
