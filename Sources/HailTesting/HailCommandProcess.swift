import Foundation
import HailProcess

/// A `hail` command (`drive`, `ride`, `bench`, ...) as a child process, its standard output's lines collected as
/// they come.
///
/// The lines end when the pipe reaches end of file or, once the child has exited, when nothing more is waiting in
/// it: a process another test spawned at the same moment may hold a copy of the pipe's write end for as long as it
/// runs, and the child's end of file would never come.
public final class HailCommandProcess: Sendable {
    /// The child.
    public let process: ChildProcess
    /// Its standard output, a line at a time, ending as described above.
    public let lines: AsyncStream<String>

    /// The `hail` executable built beside the test bundle.
    public static var executable: URL { URL(fileURLWithPath: ServerChild.hailBesideThisExecutable) }

    /// Starts `hail command arguments`, or, with a `wrapper` (a command and its arguments, such as `unshare ...`),
    /// `wrapper hail command arguments`.
    public init(_ arguments: [String], command: String, wrapper: [String] = []) throws {
        let output = Pipe()
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        self.lines = lines
        let line = wrapper + [Self.executable.path, command] + arguments
        let process = try ChildProcess.start(
            line[0], Array(line.dropFirst()), standardOutput: output.fileHandleForWriting.fileDescriptor)
        self.process = process
        try output.fileHandleForWriting.close()
        let reading = output.fileHandleForReading
        let exited: @Sendable () -> Bool = { process.termination != nil }
        Thread {
            Self.readLines(from: reading, exited: exited) { continuation.yield($0) }
            continuation.finish()
        }.start()
    }

    /// Reads `handle` a line at a time until end of file, or until `exited` and a poll finds nothing waiting.
    private static func readLines(
        from handle: FileHandle, exited: @Sendable () -> Bool, line: (String) -> Void
    ) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let descriptor = handle.fileDescriptor
        while true {
            // Asked before the poll: once the child is gone, a poll that times out means its output is all read.
            let gone = exited()
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, 100)
            if ready == 0 {
                if gone { break }
                continue
            }
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            buffer.append(contentsOf: chunk[0..<count])
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                line(String(decoding: buffer[..<newline], as: UTF8.self))
                buffer.removeSubrange(...newline)
            }
        }
        if !buffer.isEmpty { line(String(decoding: buffer, as: UTF8.self)) }
    }

    /// The exit status, or the signal's number when a signal ended it (what Foundation's `Process` reported).
    public func status() async -> Int32 {
        switch await process.waitForExit() {
        case .exited(let code): code
        case .signalled(let number): number
        }
    }
}
