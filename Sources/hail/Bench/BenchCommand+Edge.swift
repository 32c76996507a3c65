import Foundation
import HailBench

extension BenchCommand {
    /// `hail bench edge [--threads 2] [--connections 8] [--seconds 5] [--json]`.
    static func runEdge(_ arguments: [String]) async throws(UsageError) {
        let args = try Arguments(
            arguments, options: ["--threads", "--connections", "--seconds", "--duration"], flags: ["--json"])
        if args["--seconds"] != nil, args["--duration"] != nil {
            throw UsageError("--duration and --seconds are the same option; give one")
        }
        var benchmark = EdgeBenchmark()
        benchmark.threads = try args.integer("--threads", default: 2, in: 1...64)
        benchmark.connections = try args.integer("--connections", default: 8, in: 1...10_000)
        if benchmark.connections < benchmark.threads {
            throw UsageError("--connections must be at least --threads (wrk gives each thread its share)")
        }
        benchmark.seconds = try args.integer(
            args["--duration"] != nil ? "--duration" : "--seconds", default: 5, in: 1...600)
        let result = try await outcome { () async throws(BenchError) in try await benchmark.run() }
        report(result, table: result.table, json: args.has("--json"))
    }
}
