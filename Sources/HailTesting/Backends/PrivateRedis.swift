import Foundation
import HailProcess
import HailTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A `redis-server` of a test's own on a free loopback port (plain TCP, no password, nothing saved unless asked),
/// so pausing, flushing or killing it disturbs no other test, and no other test's load reaches it.
public final class PrivateRedis: Sendable {
    /// Its port.
    public let port: Int
    /// Where a snapshot is kept between a `shutdownSaving()` and the next `start()`; nil: it starts empty.
    public let dataDirectory: String?
    /// The running server and the pipe its standard output goes to, held together: releasing the pipe closes the
    /// read end its readability handler watches.
    private let process: Mutex<(child: ChildProcess, output: Pipe)?>

    /// A server on a free port, not started; `dataDirectory` keeps its snapshot (`shutdownSaving()`).
    public init(dataDirectory: String? = nil) throws {
        port = try ServerChild.freeLoopbackPort()
        self.dataDirectory = dataDirectory
        process = Mutex(nil)
    }

    /// `redis://127.0.0.1:port`.
    public var url: String { "redis://127.0.0.1:\(port)" }

    /// Starts the server and waits for its "Ready to accept connections" line.
    public func start() async throws {
        let output = Pipe()
        let lines = Mailbox<String>()
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                Task { await lines.finish() }
                return
            }
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
                Task { await lines.put(String(line)) }
            }
        }
        let directory = dataDirectory.map { ["--dir", $0, "--dbfilename", "hail-test.rdb"] } ?? []
        let process = try ChildProcess.start(
            "/usr/bin/redis-server",
            [
                "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel",
                "notice",
            ] + directory, standardOutput: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        self.process.withLock { $0 = (process, output) }
        while let line = await lines.nextOrNil(within: 20) {
            if line.contains("Ready to accept connections") { return }
        }
        kill()
        throw HarnessError(description: "redis-server on port \(port) did not become ready")
    }

    /// SIGSTOP: Redis keeps every connection open and answers nothing (its kernel still acknowledges).
    public func pause() { process.withLock { $0?.child }?.send(SIGSTOP) }

    /// SIGCONT: Redis answers again, starting with what waited.
    public func resume() { process.withLock { $0?.child }?.send(SIGCONT) }
    /// Writes a snapshot and stops (`SHUTDOWN SAVE`): connections are refused until `start()` loads it back.
    public func shutdownSaving() throws {
        let cli = try ChildProcess.start("/usr/bin/redis-cli", ["-p", String(port), "SHUTDOWN", "SAVE"])
        _ = cli.waitUntilExit()
        if let process = process.withLock({ $0?.child }) { _ = process.waitUntilExit() }
    }

    /// `FLUSHALL`: every key gone, every connection kept (as with eviction, nothing tells the clients).
    public func flushAll() throws {
        let cli = try ChildProcess.start("/usr/bin/redis-cli", ["-p", String(port), "FLUSHALL"])
        _ = cli.waitUntilExit()
    }

    /// SIGKILL: Redis vanishes mid-conversation.
    public func kill() {
        guard let process = process.withLock({ $0?.child }), process.isRunning else { return }
        process.send(SIGKILL)
        _ = process.waitUntilExit()
    }
}
