import Foundation

/// `hail bench`: measured throughput of this machine, for docs/BENCHMARKS.md.
enum BenchCommand {
    static let usage = """
        usage: hail bench <http|ingest> [options]
        """

    static func run(_ arguments: [String]) async throws(UsageError) {
        throw UsageError("no benchmark is built yet")
    }
}
