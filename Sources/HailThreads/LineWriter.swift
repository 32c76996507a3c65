import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Log lines written to a file descriptor by a thread of its own, so that whoever logs (a network loop, answering
/// a request) never waits for the write: a standard error that is a pipe whose reader stalls (a log shipper, a
/// full journal) would otherwise stop a loop, and every request on it, for as long as the reader does. At most
/// `capacity` lines wait; a line past that is dropped and counted, never waited for.
public final class LineWriter: Sendable {
    /// The process's standard error.
    public static let standardError = LineWriter(descriptor: STDERR_FILENO, name: "hail-log")

    private struct State {
        var lines: [String] = []
        var dropped = 0
        var closed = false
    }

    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let descriptor: Int32
    /// Lines that may wait at most.
    public let capacity: Int

    /// A writer to `descriptor` (not closed by the writer) with a thread named `name`.
    public init(descriptor: Int32, name: String, capacity: Int = 10_000) {
        self.descriptor = descriptor
        self.capacity = max(1, capacity)
        let thread = Thread { [self] in self.serve() }
        thread.name = name
        thread.start()
    }

    /// Queues `line` (a newline is added) and returns at once; drops it when `capacity` lines already wait.
    public func write(_ line: String) {
        let wakes = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            guard state.lines.count < capacity else {
                state.dropped += 1
                return false
            }
            state.lines.append(line)
            // The thread takes everything at once, so only the first line since then needs to wake it.
            return state.lines.count == 1
        }
        if wakes { wake.signal() }
    }

    /// Lines dropped because `capacity` lines were waiting.
    public var dropped: Int { state.withLock { $0.dropped } }

    /// Writes what waits, then stops the thread; later lines are ignored. Returns once the last line is written.
    public func close() {
        let first = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        wake.signal()
        done.wait()
    }

    private func serve() {
        while true {
            let (lines, closed) = state.withLock { state -> ([String], Bool) in
                var taken: [String] = []
                swap(&taken, &state.lines)
                return (taken, state.closed)
            }
            if !lines.isEmpty {
                var bytes = Array(lines.joined(separator: "\n").utf8)
                bytes.append(0x0A)
                writeAll(bytes)
                continue
            }
            if closed { break }
            wake.wait()
        }
        done.signal()
    }

    private func writeAll(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Self.systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, bytes, count)
        #else
            Darwin.write(descriptor, bytes, count)
        #endif
    }
}
