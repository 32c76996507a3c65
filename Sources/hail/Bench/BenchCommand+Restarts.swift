import Foundation
import HailBench

extension BenchCommand {
    /// `hail bench restarts --postgres URL --redis URL [--drivers 8000] [--riders 800] [--settle 10]
    /// [--drain-grace 1] [--drain-spread 5] [--drain-rate 400] [--drain-seconds 30] [--kill-only] [--json]`.
    static func runRestarts(_ arguments: [String]) async throws(UsageError) {
        let args = try Arguments(
            arguments,
            options: [
                "--postgres", "--redis", "--drivers", "--riders", "--settle", "--drain-grace", "--drain-spread",
                "--drain-seconds", "--drain-rate",
            ], flags: ["--json", "--kill-only"])
        guard let postgres = args["--postgres"], let redis = args["--redis"] else {
            throw UsageError("restarts needs --postgres URL and --redis URL (eval \"$(bash scripts/services.sh)\")")
        }
        var benchmark = RestartBenchmark(postgres: postgres, redis: redis)
        benchmark.drivers = try args.integer("--drivers", default: 8_000, in: 1...19_000)
        benchmark.riders = try args.integer("--riders", default: min(800, benchmark.drivers), in: 0...benchmark.drivers)
        benchmark.rolling = !args.has("--kill-only")
        benchmark.settleSeconds = try args.integer("--settle", default: 10, in: 1...600)
        benchmark.drainGrace = Double(try args.integer("--drain-grace", default: 1, in: 0...60))
        benchmark.drainSpread = Double(try args.integer("--drain-spread", default: 5, in: 0...300))
        benchmark.drainRate = Double(try args.integer("--drain-rate", default: 400, in: 1...1_000_000))
        benchmark.drainBound = Double(try args.integer("--drain-seconds", default: 30, in: 1...600))
        guard benchmark.drainGrace + benchmark.drainSpread + 1 <= benchmark.drainBound else {
            throw UsageError("--drain-seconds must be at least --drain-grace + --drain-spread + 1")
        }
        let result = try await outcome { () async throws(BenchError) in try await benchmark.run() }
        report(result, table: result.table, json: args.has("--json"))
    }
}
