import Foundation
import HailProcess
import Synchronization

/// One scaled `hail server` node of `hail bench restarts` on a fixed loopback port (the front's upstream), started,
/// drained with SIGTERM, killed with SIGKILL and started again on the same port.
final class RestartNode: Sendable {
    /// Its port.
    let port: Int
    private let executable: String
    private let arguments: [String]
    private let processors: [Int]
    private let directory: URL
    private let running = Mutex<ServerChild?>(nil)

    /// A node (not started) of `executable server` with `arguments` on `port`, pinned to `processors`, keeping its
    /// log in `directory`.
    init(executable: String, arguments: [String], port: Int, processors: [Int], directory: URL) {
        self.executable = executable
        self.arguments = arguments
        self.port = port
        self.processors = processors
        self.directory = directory
    }

    /// Starts the node and returns once it listens; a start that fails is tried again (the port may still be held
    /// for a moment by the process before), up to 20 times.
    func start() async throws(BenchError) {
        var last = ""
        for _ in 0..<20 {
            do {
                let child = try await ServerChild.start(
                    executable: executable, arguments: ["server", "--port", "\(port)"] + arguments,
                    errorLog: directory.appendingPathComponent("node-\(port).log"), processors: processors,
                    timeout: .seconds(60))
                ChildProcesses.started(child.pid)
                running.withLock { $0 = child }
                return
            } catch {
                last = error.description
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        throw BenchError("the node on port \(port) did not start: \(last)")
    }

    /// SIGTERM, then waits for the exit (at most `bound` plus a margin, then SIGKILL); the exit as text.
    func drain(bound: Duration) async -> String {
        guard let child = running.withLock({ $0 }) else { return "not running" }
        child.process.send(SIGTERM)
        let exit = await withTaskGroup(of: ChildProcess.Termination?.self) { group in
            group.addTask { await child.process.waitForExit() }
            group.addTask {
                try? await Task.sleep(for: bound + .seconds(10))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if exit == nil { child.kill() }
        running.withLock { $0 = nil }
        ChildProcesses.stopped(child.pid)
        return exit.map { "\($0)" } ?? "still running after the bound; killed"
    }

    /// The running process's pid, if any.
    var pid: Int32? { running.withLock { $0?.pid } }

    /// SIGKILL: nothing is flushed or closed.
    func kill() {
        guard
            let child = running.withLock({ current -> ServerChild? in
                defer { current = nil }
                return current
            })
        else { return }
        child.kill()
        ChildProcesses.stopped(child.pid)
    }

    /// Stops the node if it runs (SIGTERM; the drain's bound applies).
    func stop() async {
        guard
            let child = running.withLock({ current -> ServerChild? in
                defer { current = nil }
                return current
            })
        else { return }
        _ = await child.stop(grace: .seconds(40))
        ChildProcesses.stopped(child.pid)
    }
}
