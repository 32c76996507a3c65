import Dispatch
import Foundation
import Synchronization

/// `hail server` as a child process: started with the arguments given, its "listening on http://HOST:PORT" line
/// awaited, then stopped (SIGTERM, then SIGKILL) or killed outright. The one harness the benchmarks, the crash
/// loops and the tests that start real servers share.
///
/// The child's standard output and standard error are each read on a thread of their own until end of file (a
/// libdispatch readability handler crashed the event loop now and then when the pipe closed, and a pool task
/// would hold one of the cooperative pool's few threads). Its standard error comes as `errorLines` (the log lines
/// a test waits for, a reload's say) and is appended to `errorLog` when one is given, so a server that could not
/// start can say why.
public final class ServerChild: Sendable {
    /// The running child.
    public let process: ChildProcess
    /// The port it said it listens on.
    public let port: Int
    /// Where its standard error is appended, when it is.
    public let errorLog: URL?
    /// Its standard error a line at a time, from the start (the newest 1,000 kept while nobody reads).
    public let errorLines: AsyncStream<String>
    // The pipes are held for the child's lifetime: releasing one closes the read end its reader thread uses, and
    // a descriptor reused by a socket meanwhile would be read as the child's output.
    private let pipes: Mutex<(output: Pipe, errors: Pipe)>

    private init(
        process: ChildProcess, port: Int, errorLog: URL?, errorLines: AsyncStream<String>,
        pipes: sending (output: Pipe, errors: Pipe)
    ) {
        self.process = process
        self.port = port
        self.errorLog = errorLog
        self.errorLines = errorLines
        self.pipes = Mutex(pipes)
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
        let errors = Pipe()
        let log = errorLog.flatMap { url -> FileHandle? in
            if !FileManager.default.fileExists(atPath: url.path) {
                _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            }
            let handle = try? FileHandle(forWritingTo: url)
            _ = try? handle?.seekToEnd()
            return handle
        }
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        let (errorLines, errorSink) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1000))
        // What it said on standard error, kept to say why when it fails to start, and when all of it is read.
        let said = Mutex<[String]>([])
        let errorsRead = DispatchSemaphore(value: 0)
        Self.readLines(from: output.fileHandleForReading) {
            continuation.yield($0)
        } end: {
            continuation.finish()
        }
        Self.readLines(from: errors.fileHandleForReading) { line in
            log?.write(Data((line + "\n").utf8))
            said.withLock { if $0.count < 50 { $0.append(line) } }
            errorSink.yield(line)
        } end: {
            try? log?.close()
            errorSink.finish()
            errorsRead.signal()
        }
        let process: ChildProcess
        do {
            process = try ChildProcess.start(
                executable, arguments, standardOutput: output.fileHandleForWriting.fileDescriptor,
                standardError: errors.fileHandleForWriting.fileDescriptor, processors: processors)
        } catch {
            try? output.fileHandleForWriting.close()
            try? errors.fileHandleForWriting.close()
            throw ServerChildError("cannot start `\(Self.name(executable, arguments))` as a child process: \(error)")
        }
        try? output.fileHandleForWriting.close()
        try? errors.fileHandleForWriting.close()
        let port = await withTaskGroup(of: Int?.self) { group in
            group.addTask {
                for await line in lines {
                    if let port = Self.listeningPort(line) { return port }
                }
                // Its output ended without the line: it is exiting, so say how once it has (or the timeout will).
                _ = await process.waitForExitUnlessCancelled()
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
            if ended != nil {
                // Gone: its standard error reaches its end at once (2 s at most, should a grandchild hold the pipe).
                await withCheckedContinuation { (read: CheckedContinuation<Void, Never>) in
                    DispatchQueue.global().async {
                        _ = errorsRead.wait(timeout: .now() + 2)
                        read.resume()
                    }
                }
            }
            let told = said.withLock { $0 }
            // The server's own error line, not the usage it prints after it.
            let reason = told.first { $0.hasPrefix("hail server:") }
            let tail = String(told.joined(separator: "\n").suffix(400))
            let what = Self.name(executable, arguments)
            let why: String
            switch ended {
            case .exited(let status)?: why = "`\(what)` exited with status \(status) before it was listening"
            case .signalled(let signal)?: why = "`\(what)` was ended by signal \(signal) before it was listening"
            case nil: why = "`\(what)` did not say it was listening within \(timeout)"
            }
            throw ServerChildError(why + (reason.map { ": \($0)" } ?? (tail.isEmpty ? "" : ": \(tail)")))
        }
        return ServerChild(
            process: process, port: port, errorLog: errorLog, errorLines: errorLines, pipes: (output, errors))
    }

    /// Reads `handle` a line at a time on a thread of its own until end of file, then calls `end`.
    private static func readLines(
        from handle: FileHandle, line: @escaping @Sendable (String) -> Void, end: @escaping @Sendable () -> Void
    ) {
        Thread {
            var buffer = ""
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                buffer += String(decoding: data, as: UTF8.self)
                var parts = buffer.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                buffer = parts.removeLast()
                for text in parts { line(text) }
            }
            if !buffer.isEmpty { line(buffer) }
            end()
        }.start()
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
