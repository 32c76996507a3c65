import Foundation
import HailProcess

/// A short command a test runs to its end, its standard output collected.
public enum CommandOutput {
    /// Runs `executable` with `arguments` and returns what it wrote to standard output; throws unless it exits 0.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:])
        async throws -> String
    {
        let output = Pipe()
        let child = try ChildProcess.start(
            executable, arguments, environment: environment, standardOutput: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        let reading = output.fileHandleForReading
        let data = await Task.detached { reading.readDataToEndOfFile() }.value
        let end = await child.waitForExit()
        guard end == .exited(0) else {
            throw HarnessError(description: "\(executable) \(arguments.joined(separator: " ")) ended \(end)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
