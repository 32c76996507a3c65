import Foundation
import HailProcess

/// Waits for a server a test started to say it is ready, in the log file it writes.
enum LogWait {
    /// Returns once `path` contains `text`; throws when `child` exits first or 20 s pass, quoting the log's end.
    static func until(_ path: String, contains text: String, or child: ChildProcess, what: String) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let log = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if log.contains(text) { return }
            if !child.isRunning { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let log = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        if child.isRunning {
            child.send(SIGKILL)
            _ = await child.waitForExit()
        }
        throw HarnessError(description: "\(what) did not become ready; its log ends:\n\(log.suffix(1500))")
    }
}
