import HailBench

extension BenchCommand {
    /// `hail bench client [--frames N] [--applies N] [--hours H] [--json]`.
    static func runClient(_ arguments: [String]) async throws(UsageError) {
        let args = try Arguments(arguments, options: ["--frames", "--applies", "--hours"], flags: ["--json"])
        var benchmark = ClientBenchmark()
        benchmark.frames = try args.integer("--frames", default: 1_000_000, in: 1...1_000_000_000)
        benchmark.applies = try args.integer("--applies", default: 1_000_000, in: 1...1_000_000_000)
        benchmark.shiftHours = try args.integer("--hours", default: 10, in: 1...100)
        let result = benchmark.run()
        report(result, table: result.table, json: args.has("--json"))
    }
}
