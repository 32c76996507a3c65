import Foundation
import HailBench

extension BenchCommand {
    /// `hail bench match [--kubicka DIR] [--json]`: timed on the thread's CPU clock, so the shared machine's load
    /// does not count as matching time.
    static func runMatch(_ arguments: [String]) async throws(UsageError) {
        let args = try Arguments(arguments, options: ["--kubicka"], flags: ["--json"])
        guard let path = args["--kubicka"] ?? SharedDataFile.path(SharedDataFile.kubickaTracks) else {
            throw UsageError(
                "the Kubicka tracks are not at \(SharedDataFile.directory)/\(SharedDataFile.kubickaTracks); pass "
                    + "--kubicka DIR")
        }
        let result = try await outcome { () throws(BenchError) in
            KubickaBenchmark.run(
                tracks: try KubickaTrack.readAll(directory: URL(fileURLWithPath: path)), clock: ThreadCPUClock())
        }
        report(result, table: result.table, json: args.has("--json"))
    }
}
