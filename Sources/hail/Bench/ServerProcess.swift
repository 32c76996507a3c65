import Foundation
import HailProcess
import Synchronization

/// `hail server` started as a child process of the benchmark, on 127.0.0.1 and a free port, with a fresh
/// SQLite file and secret in a temporary directory, so its CPU and memory are its own and can be read
/// from /proc while the load generator runs in this process.
final class ServerProcess: Sendable {
    /// The child.
    let pid: Int32
    /// The port it listens on.
    let port: Int
    /// Its token secret, for minting tokens it accepts.
    let secretFile: String
    /// The temporary directory (database, secret, log), removed by `stop`.
    let directory: URL
    private let process: ChildProcess
    // Held for the child's lifetime: releasing the pipe closes the descriptor its readability handler
    // watches, and a socket reusing that number confuses libdispatch's event loop (a crash).
    private let output: Mutex<Pipe>

    private init(
        pid: Int32, port: Int, secretFile: String, directory: URL, process: ChildProcess, output: sending Pipe
    ) {
        self.pid = pid
        self.port = port
        self.secretFile = secretFile
        self.directory = directory
        self.process = process
        self.output = Mutex(output)
    }

    /// Starts `hail server --port 0 ... extraArguments` from this very executable and waits for its
    /// "listening" line. The child inherits this process's open-file limit.
    /// `secretFile`, when given, is another node's secret, so tokens minted for one are good on both;
    /// `processors`, when not empty, are the only cores the child runs on (its loops pin to them in order).
    static func start(
        extraArguments: [String] = [], secretFile given: String? = nil, processors: [Int] = [],
        timeoutSeconds: Double = 60
    ) async throws(BenchFailure) -> ServerProcess {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hail-bench-server-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw BenchFailure("cannot create a temporary directory: \(error)")
        }
        let secretFile = given ?? directory.appendingPathComponent("hail.secret").path
        let log = directory.appendingPathComponent("server.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let arguments =
            [
                "server", "--host", "127.0.0.1", "--port", "0", "--db",
                directory.appendingPathComponent("bench.db").path,
                "--secret-file", secretFile, "--quiet",
            ] + extraArguments
        let output = Pipe()
        let errors = try? FileHandle(forWritingTo: log)
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        let reader = output.fileHandleForReading
        // A plain thread reading until end of file: FileHandle's readabilityHandler runs on a libdispatch
        // source that crashed the event loop here now and then when the child's pipe closed.
        Thread {
            var buffer = ""
            while true {
                let data = reader.availableData
                if data.isEmpty { break }
                buffer += String(decoding: data, as: UTF8.self)
                var parts = buffer.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                buffer = parts.removeLast()
                for line in parts { continuation.yield(line) }
            }
            continuation.finish()
        }.start()
        ChildProcesses.stopOnInterrupt()
        let process: ChildProcess
        do {
            process = try ChildProcess.start(
                executable, arguments, standardOutput: output.fileHandleForWriting.fileDescriptor,
                standardError: errors?.fileDescriptor, processors: processors)
            try? output.fileHandleForWriting.close()
            try? errors?.close()
            ChildProcesses.started(process.pid)
        } catch {
            try? output.fileHandleForWriting.close()
            try? FileManager.default.removeItem(at: directory)
            throw BenchFailure("cannot start `hail server` as a child process: \(error)")
        }
        let port = await withTaskGroup(of: Int?.self) { group in
            group.addTask {
                for await line in lines {
                    if let port = Self.listeningPort(line) { return port }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(timeoutSeconds))
                return nil
            }
            // A child that could not start (a database that does not exist, a port taken) exits at once: say so
            // then, not after the whole timeout.
            group.addTask {
                // Cancellable: the group ends only when every task has, so a wait for the end would hold it
                // until the server stops.
                _ = await process.waitForExitUnlessCancelled()
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        let server = ServerProcess(
            pid: process.pid, port: port ?? 0, secretFile: secretFile, directory: directory,
            process: process, output: output)
        guard port != nil else {
            let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            let ended = process.termination
            await server.stop()
            // The server's own error line, not the usage it prints after it.
            let reason = said.split(separator: "\n").first { $0.hasPrefix("hail server:") }.map(String.init)
            throw BenchFailure(
                (ended.map { ended -> String in
                    switch ended {
                    case .exited(let status):
                        return "`hail server` exited with status \(status) before it was listening"
                    case .signalled(let signal):
                        return "`hail server` was ended by signal \(signal) before it was listening"
                    }
                }
                    ?? "`hail server` did not say it was listening within \(Int(timeoutSeconds)) s")
                    + (reason.map { ": \($0)" } ?? (said.isEmpty ? "" : ": \(said.suffix(400))")))
        }
        return server
    }

    /// The port in "Hail server listening on http://127.0.0.1:PORT ...".
    static func listeningPort(_ line: String) -> Int? {
        guard let range = line.range(of: "listening on http://") else { return nil }
        let authority = line[range.upperBound...].prefix { !$0.isWhitespace }
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        return Int(authority[authority.index(after: colon)...])
    }

    /// The child's CPU time and memory now.
    func usage() -> ProcessUsage? { ProcessUsage.of(pid: pid) }

    /// True while the child runs.
    var isRunning: Bool { process.isRunning }

    /// Stops the child with SIGTERM (SIGKILL after 10 s) and removes its directory.
    func stop() async {
        _ = await process.stop(grace: .seconds(10))
        ChildProcesses.stopped(pid)
        try? FileManager.default.removeItem(at: directory)
    }
}
