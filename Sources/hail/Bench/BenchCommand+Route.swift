import Foundation
import HailRoads
import HailTesting

extension BenchCommand {
    /// `hail bench route [--map FILE.osm.pbf] [--routes N] [--traces N] [--json]`.
    static func runRoute(_ arguments: [String]) throws(UsageError) {
        let args = try Arguments(arguments, options: ["--map", "--routes", "--traces"], flags: ["--json"])
        let routes = try args.integer("--routes", default: 2_000, in: 1...1_000_000)
        let traces = try args.integer("--traces", default: 50, in: 0...10_000)
        let path: String
        if let given = args["--map"] {
            path = given
        } else if let shared = SharedData.file(monacoMap) {
            path = shared.path
        } else {
            throw UsageError(
                "the Monaco map is not at \(SharedData.directory.path)/\(monacoMap); pass --map FILE.osm.pbf")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("--map: cannot read '\(path)'")
        }
        let bytes = [UInt8](data)
        let clock = ContinuousClock()
        do {
            let roads = try RoadBenchmark.run(pbf: bytes, routes: routes, clock: clock)
            var matching: [MapMatchBenchmarkResult] = []
            if traces > 0 {
                let graph = RoadGraph(extract: try OSMPBFReader.read(bytes))
                for seconds in [1.0, 15.0] {
                    matching.append(
                        MapMatchBenchmark.run(graph: graph, traces: traces, sampleSeconds: seconds, clock: clock))
                }
            }
            let result = RouteBenchmarkResult(
                map: args["--map"] ?? monacoMap, roads: roads, matching: matching, machine: BenchMachine.current())
            report(result, table: result.table, json: args.has("--json"))
        } catch {
            throw UsageError("--map: '\(path)' is not a readable OpenStreetMap PBF file: \(error)")
        }
    }

    /// The real map the route figures are measured on, inside the shared data folder.
    static let monacoMap = "osm/monaco.osm.pbf"
}
