import Foundation
import HailBench

extension BenchCommand {
    /// `hail bench connections [--count N] [--hold S] [--json]`.
    static func runConnections(_ arguments: [String]) async throws(UsageError) {
        let args = try Arguments(arguments, options: ["--count", "--hold"], flags: ["--json"])
        var benchmark = ConnectionsBenchmark()
        benchmark.count = try args.integer("--count", default: 1_000, in: 1...1_000_000)
        benchmark.holdSeconds = try args.integer("--hold", default: 5, in: 0...600)
        // A peer closing mid-write must become an error on that connection, not kill the benchmark.
        signal(SIGPIPE, SIG_IGN)
        let result = try await outcome { () async throws(BenchError) in try await benchmark.run() }
        report(result, table: result.table, json: args.has("--json"))
    }
}
