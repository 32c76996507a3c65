import Foundation
import HailBench

extension BenchCommand {
    /// `hail bench route [--map FILE.osm.pbf] [--routes N] [--traces N] [--json]`.
    static func runRoute(_ arguments: [String]) async throws(UsageError) {
        let args = try Arguments(arguments, options: ["--map", "--routes", "--traces"], flags: ["--json"])
        guard let path = args["--map"] ?? SharedDataFile.path(SharedDataFile.monacoMap) else {
            throw UsageError(
                "the Monaco map is not at \(SharedDataFile.directory)/\(SharedDataFile.monacoMap); pass --map "
                    + "FILE.osm.pbf")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("--map: cannot read '\(path)'")
        }
        var benchmark = RouteBenchmark(pbf: [UInt8](data), mapName: args["--map"] ?? SharedDataFile.monacoMap)
        benchmark.routes = try args.integer("--routes", default: 2_000, in: 1...1_000_000)
        benchmark.traces = try args.integer("--traces", default: 50, in: 0...10_000)
        let result = try await outcome { () throws(BenchError) in try benchmark.run() }
        report(result, table: result.table, json: args.has("--json"))
    }
}
