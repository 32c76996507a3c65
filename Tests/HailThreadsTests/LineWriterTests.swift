import Foundation
import HailThreads
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Log lines written off the caller's thread")
struct LineWriterTests {
    /// A reader that reads nothing (a stalled log shipper): each line is bigger than the pipe holds, so the writer's
    /// thread blocks on the first, and the caller must still get every call back at once, the lines past the queue's
    /// capacity dropped and counted. Then the reader reads: what was kept arrives whole and in order.
    @Test func aStalledReaderNeverHoldsTheCallerUpAndWhatWasKeptArrivesInOrder() throws {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
        defer { close(readEnd) }
        let writer = LineWriter(descriptor: writeEnd, name: "hail-log-test", capacity: 3)
        let lines = (0..<6).map { index in String(repeating: Character(String(index)), count: 100_000) }
        // Every call returns while nothing has been read: the test would hang here otherwise.
        for line in lines { writer.write(line) }
        let dropped = writer.dropped
        #expect(dropped > 0)

        let reading = ReadToEnd(readEnd)
        writer.close()
        close(writeEnd)
        let received = reading.value().split(separator: "\n").map(String.init)
        #expect(received == Array(lines.prefix(lines.count - dropped)))
    }
}

/// Reads a descriptor to its end on a thread of its own.
private final class ReadToEnd: @unchecked Sendable {
    // Written once by the reading thread before `done` is signalled, read after it.
    private var bytes: [UInt8] = []
    private let done = DispatchSemaphore(value: 0)

    init(_ descriptor: Int32) {
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count <= 0 { break }
                bytes += buffer[0..<count]
            }
            done.signal()
        }
    }

    func value() -> String {
        done.wait()
        return String(decoding: bytes, as: UTF8.self)
    }
}
