import Foundation
import HailBench
import HailCore
import HailDriver

extension BenchCommand {
    /// `hail bench wire [--trace FILE] [--json]`.
    static func runWire(_ arguments: [String]) async throws(UsageError) {
        let args = try Arguments(arguments, options: ["--trace"], flags: ["--json"])
        guard let path = args["--trace"] ?? SharedDataFile.path(SharedDataFile.munichTrace) else {
            throw UsageError(
                "the Munich trace is not at \(SharedDataFile.directory)/\(SharedDataFile.munichTrace); pass --trace "
                    + "FILE (a Barefoot JSON trace) or set HAIL_SHARED_DATA")
        }
        let points: [LocationPoint]
        do {
            points = try DriverTrace.parseBarefoot(Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw UsageError("--trace: cannot read '\(path)' as a Barefoot JSON trace: \(error)")
        }
        let benchmark = WireBenchmark(trace: points, traceName: args["--trace"] ?? SharedDataFile.munichTrace)
        let result = try await outcome { () throws(BenchError) in try benchmark.run() }
        report(result, table: result.table, json: args.has("--json"))
    }
}
