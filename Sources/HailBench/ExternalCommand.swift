import Foundation
import HailProcess

/// Runs another program (redis-benchmark, redis-cli) to completion on a thread of its own and collects
/// what it printed.
enum ExternalCommand {
    /// The program's absolute path found on `PATH`, or nil.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `executable` with `arguments`; its exit status and standard output (standard error is dropped, or
    /// read with the output when `includeErrors`: `nginx -v` prints its version there).
    static func run(_ executable: String, _ arguments: [String], includeErrors: Bool = false) async
        -> (status: Int32, output: String)
    {
        let results = await BlockingThreads.run(count: 1) { _ -> (Int32, String) in
            let output = Pipe()
            let process: ChildProcess
            do {
                let writer = output.fileHandleForWriting.fileDescriptor
                process = try ChildProcess.start(
                    executable, arguments, standardOutput: writer, standardError: includeErrors ? writer : nil)
                try? output.fileHandleForWriting.close()
            } catch {
                try? output.fileHandleForWriting.close()
                return (-1, "\(error)")
            }
            let data = output.fileHandleForReading.readDataToEndOfFile()
            let status: Int32 =
                switch process.waitUntilExit() {
                case .exited(let code): code
                case .signalled(let number): 128 + number
                }
            return (status, String(decoding: data, as: UTF8.self))
        }
        return results.first ?? (-1, "")
    }
}
