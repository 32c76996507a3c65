import Foundation
import HailCore
import HailDriver
import HailProtocol
import HailServer
import Synchronization
import Testing

/// `hail drive` as a child process, its `--json` lines collected as they come.
final class DriveProcess: Sendable {
    let process: Process
    let lines: AsyncStream<String>
    private let exit = Locked<(status: Int32?, continuation: CheckedContinuation<Int32, Never>?)>((nil, nil))

    static var executable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("hail")
    }

    init(_ arguments: [String], command: String = "drive") throws {
        process = Process()
        process.executableURL = Self.executable
        process.arguments = [command] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        self.lines = lines
        let partial = Locked("")
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                continuation.finish()
                return
            }
            let complete = partial.value.withLock { buffer -> [String] in
                buffer += String(decoding: data, as: UTF8.self)
                var parts = buffer.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                buffer = parts.removeLast()
                return parts
            }
            for line in complete { continuation.yield(line) }
        }
        process.terminationHandler = { [exit] process in
            let waiter = exit.value.withLock { state in
                state.status = process.terminationStatus
                return state.continuation
            }
            waiter?.resume(returning: process.terminationStatus)
        }
        try process.run()
    }

    func status() async -> Int32 {
        await withCheckedContinuation { continuation in
            let done = exit.value.withLock { state -> Int32? in
                if let status = state.status { return status }
                state.continuation = continuation
                return nil
            }
            if let done { continuation.resume(returning: done) }
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
