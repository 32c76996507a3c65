import Foundation
import HailRoads

/// What `hail bench route` measured: loading, routing and snapping on a road map, then map matching.
public struct RouteBenchmarkResult: Encodable, Sendable {
    /// One map-matching run.
    public struct Matching: Encodable, Sendable {
        /// Seconds between fixes.
        public let sampleSeconds: Double
        /// Simulated drives matched.
        public let traces: Int
        /// Fixes matched.
        public let points: Int
        /// Share of the true route's length the matched path recovers.
        public let recoveredShare: Double
        /// Matched distance over true distance.
        public let distanceRatio: Double
        /// Places the matched chain broke.
        public let breaks: Int
        /// Fixes matched per second.
        public let pointsPerSecond: Double

        /// Copies HailRoads' result.
        init(_ result: MapMatchBenchmarkResult) {
            sampleSeconds = result.sampleSeconds
            traces = result.traces
            points = result.points
            recoveredShare = result.recoveredShare.rounded(toPlaces: 4)
            distanceRatio = result.distanceRatio.rounded(toPlaces: 4)
            breaks = result.breaks
            pointsPerSecond = result.pointsPerSecond.rounded(toPlaces: 0)
        }
    }

    /// Always "route".
    public let benchmark = "route"
    /// The map file.
    public let map: String
    /// Seconds to read the PBF.
    public let readSeconds: Double
    /// Seconds to build the graph.
    public let graphSeconds: Double
    /// Seconds to build the router and snapping index.
    public let indexSeconds: Double
    /// Graph nodes.
    public let nodeCount: Int
    /// Directed edges.
    public let edgeCount: Int
    /// Route/ETA queries asked (seeded random node pairs).
    public let routes: Int
    /// Of those, with a route.
    public let routesFound: Int
    /// Mean length of the routes found, metres.
    public let meanRouteMeters: Double
    /// Route/ETA queries answered per second (one thread).
    public let routesPerSecond: Double
    /// Snaps of a random point to the nearest road per second.
    public let snapsPerSecond: Double
    /// Map matching at 1 s and 15 s fixes.
    public let matching: [Matching]
    /// The machine.
    public let machine: BenchMachine

    /// Copies HailRoads' results.
    init(map: String, roads: RoadBenchmarkResult, matching: [MapMatchBenchmarkResult], machine: BenchMachine) {
        self.map = map
        readSeconds = roads.readSeconds.rounded(toPlaces: 4)
        graphSeconds = roads.graphSeconds.rounded(toPlaces: 4)
        indexSeconds = roads.indexSeconds.rounded(toPlaces: 4)
        nodeCount = roads.nodeCount
        edgeCount = roads.edgeCount
        routes = roads.routes
        routesFound = roads.routesFound
        meanRouteMeters = roads.meanRouteMeters.rounded(toPlaces: 0)
        routesPerSecond = roads.routesPerSecond.rounded(toPlaces: 1)
        snapsPerSecond = roads.snapsPerSecond.rounded(toPlaces: 0)
        self.matching = matching.map(Matching.init)
        self.machine = machine
    }

    /// The human-readable report.
    public var table: String {
        var table = BenchTable(title: "hail bench route: \(map)")
        table.add(
            "load",
            "read \((readSeconds * 1000).fixed(1)) ms, graph \((graphSeconds * 1000).fixed(1)) ms, index "
                + "\((indexSeconds * 1000).fixed(1)) ms: \(nodeCount) nodes, \(edgeCount) edges")
        table.add(
            "route/ETA queries",
            "\(routesPerSecond.fixed(1)) per second on one thread (\(routesFound) of \(routes) found, mean "
                + "\(meanRouteMeters.fixed(0)) m)")
        table.add("snaps", "\(snapsPerSecond.fixed(0)) per second")
        for run in matching {
            table.add(
                "map matching \(run.sampleSeconds.fixed(0)) s",
                "\(run.pointsPerSecond.fixed(0)) fixes/s, \((run.recoveredShare * 100).fixed(2))% of the route "
                    + "recovered, distance x\(run.distanceRatio.fixed(3)), \(run.breaks) breaks (\(run.traces) drives)")
        }
        table.add("machine", machine.summary)
        return table.text
    }
}
