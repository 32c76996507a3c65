import Foundation
import HailCore
import HailDriver
import HailTesting

extension BenchCommand {
    /// `hail bench wire [--trace FILE] [--json]`.
    static func runWire(_ arguments: [String]) throws(UsageError) {
        let args = try Arguments(arguments, options: ["--trace"], flags: ["--json"])
        let path: String
        if let given = args["--trace"] {
            path = given
        } else if let shared = SharedData.file(munichTrace) {
            path = shared.path
        } else {
            throw UsageError(
                "the Munich trace is not at \(SharedData.directory.path)/\(munichTrace); pass --trace FILE "
                    + "(a Barefoot JSON trace) or set HAIL_SHARED_DATA")
        }
        let points: [LocationPoint]
        do {
            points = try DriverTrace.parseBarefoot(Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw UsageError("--trace: cannot read '\(path)' as a Barefoot JSON trace: \(error)")
        }
        let name = args["--trace"] ?? munichTrace
        do {
            let result = try WireBenchmark(trace: points, traceName: name).run()
            report(result, table: result.table, json: args.has("--json"))
        } catch {
            failed(error)
        }
    }

    /// The real drive the wire figures are measured on, inside the shared data folder.
    static let munichTrace = "traces/barefoot-munich/x0001-001.json"
}
