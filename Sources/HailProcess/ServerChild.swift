import Foundation
import Synchronization

/// `hail server` as a child process: started with the arguments given, its "listening on http://HOST:PORT" line
/// awaited, then stopped (SIGTERM, then SIGKILL) or killed outright. The one harness the benchmarks, the crash
/// loops and the tests that start real servers share.
///
/// The child's standard output is read on a thread of its own until end of file (a libdispatch readability
/// handler crashed the event loop now and then when the pipe closed, and a pool task would hold one of the
/// cooperative pool's few threads); its standard error goes to `errorLog` when one is given, so a server that
/// could not start can say why.
public final class ServerChild: Sendable {
    /// The running child.
    public let process: ChildProcess
    /// The port it said it listens on.
    public let port: Int
    /// Where its standard error goes, when it goes to a file.
    public let errorLog: URL?
    // The pipe is held for the child's lifetime: releasing it closes the read end the reader thread uses, and a
    // descriptor reused by a socket meanwhile would be read as the child's output.
    private let output: Mutex<Pipe>

    private init(process: ChildProcess, port: Int, errorLog: URL?, output: sending Pipe) {
        self.process = process
        self.port = port
        self.errorLog = errorLog
        self.output = Mutex(output)
    }

    /// The child's process id.
    public var pid: Int32 { process.pid }

    /// True while the child runs.
    public var isRunning: Bool { process.isRunning }

    /// `http://127.0.0.1:PORT`, the base of every request to the child.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The `hail` executable built beside the running one: a test bundle's neighbour in `.build/<config>/`.
    public static var hailBesideThisExecutable: String {
        URL(fileURLWithPath: thisExecutable).deletingLastPathComponent().appendingPathComponent("hail").path
    }

    /// The running executable itself (`hail` when `hail bench` starts its servers, whatever its file is called).
    public static var thisExecutable: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    }

    /// Starts `executable arguments` (for `hail`: `server --port 0 ...`) and waits for its listening line.
    ///
    /// - Parameters:
    ///   - errorLog: a file the child's standard error is appended to; nil leaves it on this process's.
    ///   - processors: when not empty, the only cores the child runs on.
    ///   - timeout: how long the child has to say it listens.
    /// - Throws: `ServerChildError` when it cannot be started, exits first (with its own error line when it
    ///   wrote one to `errorLog`) or says nothing in time; the child is stopped in every case.
    public static func start(
        executable: String, arguments: [String], errorLog: URL? = nil, processors: [Int] = [],
        timeout: Duration = .seconds(60)
    ) async throws(ServerChildError) -> ServerChild {
        let output = Pipe()
        var errors: FileHandle?
        if let errorLog {
            if !FileManager.default.fileExists(atPath: errorLog.path) {
                _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
            }
            errors = try? FileHandle(forWritingTo: errorLog)
            _ = try? errors?.seekToEnd()
        }
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        let reader = output.fileHandleForReading
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
        let process: ChildProcess
        do {
            process = try ChildProcess.start(
                executable, arguments, standardOutput: output.fileHandleForWriting.fileDescriptor,
                standardError: errors?.fileDescriptor, processors: processors)
        } catch {
            try? output.fileHandleForWriting.close()
            try? errors?.close()
            throw ServerChildError("cannot start `\(Self.name(executable, arguments))` as a child process: \(error)")
        }
        try? output.fileHandleForWriting.close()
        try? errors?.close()
        let port = await withTaskGroup(of: Int?.self) { group in
            group.addTask {
                for await line in lines {
                    if let port = Self.listeningPort(line) { return port }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            // A child that could not start (a database it cannot open, a port taken) exits at once: say so then,
            // not after the whole timeout. Cancellable, so the group does not wait for a listening child's end.
            group.addTask {
                _ = await process.waitForExitUnlessCancelled()
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let port else {
            let ended = process.termination
            _ = await process.stop(grace: .seconds(5))
            let said = errorLog.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
            // The server's own error line, not the usage it prints after it.
            let reason = said.split(separator: "\n").first { $0.hasPrefix("hail server:") }.map(String.init)
            let what = Self.name(executable, arguments)
            let why: String
            switch ended {
            case .exited(let status)?: why = "`\(what)` exited with status \(status) before it was listening"
            case .signalled(let signal)?: why = "`\(what)` was ended by signal \(signal) before it was listening"
            case nil: why = "`\(what)` did not say it was listening within \(timeout)"
            }
            throw ServerChildError(why + (reason.map { ": \($0)" } ?? (said.isEmpty ? "" : ": \(said.suffix(400))")))
        }
        return ServerChild(process: process, port: port, errorLog: errorLog, output: output)
    }

    /// The port in "... listening on http://127.0.0.1:PORT ...", or nil when the line is not that.
    public static func listeningPort(_ line: String) -> Int? {
        guard let range = line.range(of: "listening on http://") else { return nil }
        let authority = line[range.upperBound...].prefix { !$0.isWhitespace }
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        return Int(authority[authority.index(after: colon)...].prefix { $0.isNumber })
    }

    /// Stops the child: SIGTERM, then SIGKILL after `grace`.
    @discardableResult
    public func stop(grace: Duration = .seconds(10)) async -> ChildProcess.Termination {
        await process.stop(grace: grace)
    }

    /// SIGKILL, no chance to flush or close anything, and waits until the child is gone (at once: nothing can
    /// hold off a SIGKILL, so the wait is the kernel's reaping, short enough to block on, in a `defer` too).
    public func kill() {
        guard process.isRunning else { return }
        process.send(SIGKILL)
        _ = process.waitUntilExit()
    }

    private static func name(_ executable: String, _ arguments: [String]) -> String {
        ([URL(fileURLWithPath: executable).lastPathComponent] + arguments.prefix(1)).joined(separator: " ")
    }
}

/// A server child that could not be started or did not say it was listening.
public struct ServerChildError: Error, CustomStringConvertible, Sendable {
    /// What happened, with the child's own error line when it wrote one.
    public let description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
