import Foundation
import HailCore
import HailDriver
import HailProcess
import HailProtocol
import HailServer
import Synchronization
import Testing

/// `hail drive` as a child process, its `--json` lines collected as they come.
///
/// The lines end when the pipe reaches end of file or, once the child has exited, when nothing more is waiting in
/// it: a process another test spawned at the same moment may hold a copy of the pipe's write end for as long as it
/// runs, and the child's end of file would never come.
final class DriveProcess: Sendable {
    let process: ChildProcess
    let lines: AsyncStream<String>

    static var executable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("hail")
    }

    init(_ arguments: [String], command: String = "drive") throws {
        let output = Pipe()
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        self.lines = lines
        let process = try ChildProcess.start(
            Self.executable.path, [command] + arguments, standardOutput: output.fileHandleForWriting.fileDescriptor)
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
    func status() async -> Int32 {
        switch await process.waitForExit() {
        case .exited(let code): code
        case .signalled(let number): number
        }
    }
}

@Suite("hail drive against the real server", .serialized)
struct DriveCommandTests {
    @Test func autoModeDrivesATripToTheFareAndPrintsEveryScreen() async throws {
        guard FileManager.default.isExecutableFile(atPath: DriveProcess.executable.path) else { return }
        let loopback = try await DriverLoopback.start(time: .live(), origin: Date())
        defer { Task { await loopback.stop() } }
        let driver = try DriveProcess([
            "--server", loopback.baseURL.absoluteString, "--token", loopback.token(.driver, "cli-driver"),
            "--start", "43.7390,7.4270", "--speed", "200", "--auto", "--json", "--trips", "1",
        ])
        let screens = await withDeadline(60) { () -> [DriverScreen] in
            var screens: [DriverScreen] = []
            var requested = false
            for await line in driver.lines {
                guard let screen = try? HailJSON.decode(DriverScreen.self, from: Data(line.utf8)) else { continue }
                screens.append(screen)
                if !requested, screen.link == "stream" {
                    requested = true
                    _ = try? await loopback.requestTrip(
                        rider: loopback.token(.rider, "cli-rider"), pickup: Fixture.pickup,
                        dropoff: Coordinate(lat: 43.7380, lng: 7.4260))
                }
            }
            return screens
        }
        #expect(await driver.status() == 0)
        let titles = (screens ?? []).map(\.title).reduce(into: [String]()) { titles, title in
            if titles.last != title { titles.append(title) }
        }
        let expected = [
            "Offline", "Waiting for trips", "New trip offer", "Accepting trip…", "Driving to pickup", "Arriving…",
            "At pickup", "Starting trip…", "On trip", "Ending trip…", "Trip completed",
        ]
        #expect(titles.starts(with: expected))
        let completed = screens?.last { $0.tripState == .completed }
        #expect(completed?.fare == Money(amountMinor: 700, currency: "EUR"))
    }
}

/// A mutex that closures can share by reference.
final class Locked<Value: Sendable>: Sendable {
    let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
}
