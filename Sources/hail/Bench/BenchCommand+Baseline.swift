import Foundation
import HailBench

extension BenchCommand {
    /// `hail bench baseline [--clients N] [--requests N] [--pipeline N] [--seconds S | --ingest-json FILE] [--json]`.
    static func runBaseline(_ arguments: [String]) async throws(UsageError) {
        let args = try Arguments(
            arguments, options: ["--clients", "--requests", "--pipeline", "--seconds", "--ingest-json"],
            flags: ["--json"])
        var benchmark = BaselineBenchmark()
        benchmark.clients = try args.integer("--clients", default: 100, in: 1...10_000)
        benchmark.requests = try args.integer("--requests", default: 200_000, in: 1...100_000_000)
        benchmark.pipeline = try args.integer("--pipeline", default: 1, in: 1...1_000)
        let seconds = try args.integer("--seconds", default: 10, in: 1...600)
        if let path = args["--ingest-json"] {
            if args["--seconds"] != nil {
                throw UsageError("--seconds sets the short ingest run, which --ingest-json replaces; give one")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw UsageError("--ingest-json: cannot read '\(path)'")
            }
            benchmark.hail = .saved(
                try await outcome { () throws(BenchError) in try BaselineResult.Hail(savedIngest: data, source: path) })
        } else {
            benchmark.hail = .measure(seconds: seconds)
        }
        let result = try await outcome { () async throws(BenchError) in try await benchmark.run() }
        report(result, table: result.table, json: args.has("--json"))
    }
}
