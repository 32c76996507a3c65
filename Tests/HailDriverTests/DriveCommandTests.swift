import Foundation
import HailCore
import HailDriver
import HailProcess
import HailProtocol
import HailServer
import HailTesting
import Synchronization
import Testing

@Suite("hail drive against the real server", .serialized)
struct DriveCommandTests {
    @Test func autoModeDrivesATripToTheFareAndPrintsEveryScreen() async throws {
        guard FileManager.default.isExecutableFile(atPath: HailCommandProcess.executable.path) else { return }
        let loopback = try await DriverLoopback.start(time: .live(), origin: Date())
        defer { Task { await loopback.stop() } }
        let driver = try HailCommandProcess(
            [
                "--server", loopback.baseURL.absoluteString, "--token", loopback.token(.driver, "cli-driver"),
                "--start", "43.7390,7.4270", "--speed", "200", "--auto", "--json", "--trips", "1",
            ], command: "drive")
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
