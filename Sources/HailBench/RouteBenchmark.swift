import Foundation
import HailRoads

/// `hail bench route`: loading, routing and snapping on a road map (`RoadBenchmark`), then map matching at 1 s
/// and 15 s between fixes (`MapMatchBenchmark`), on the map's own graph.
public struct RouteBenchmark: Sendable {
    /// The map, an OpenStreetMap PBF file's bytes.
    public var pbf: [UInt8]
    /// Its name in the report.
    public var mapName: String
    /// Random node-to-node routes (and as many snaps) timed.
    public var routes = 2_000
    /// Simulated drives matched at each sampling interval; 0 skips matching.
    public var traces = 50

    /// A benchmark of the map in `pbf`, named `mapName`.
    public init(pbf: [UInt8], mapName: String) {
        self.pbf = pbf
        self.mapName = mapName
    }

    /// Runs both on `clock` (pass a `ManualClock` to get the counts without timings).
    public func run<C: Clock>(clock: C = ContinuousClock()) throws(BenchError) -> RouteBenchmarkResult
    where C.Duration == Duration {
        do {
            let roads = try RoadBenchmark.run(pbf: pbf, routes: routes, clock: clock)
            var matching: [MapMatchBenchmarkResult] = []
            if traces > 0 {
                let graph = RoadGraph(extract: try OSMPBFReader.read(pbf))
                for seconds in [1.0, 15.0] {
                    matching.append(
                        MapMatchBenchmark.run(graph: graph, traces: traces, sampleSeconds: seconds, clock: clock))
                }
            }
            return RouteBenchmarkResult(map: mapName, roads: roads, matching: matching, machine: BenchMachine.current())
        } catch {
            throw .invalidOption("--map: '\(mapName)' is not a readable OpenStreetMap PBF file: \(error)")
        }
    }
}
