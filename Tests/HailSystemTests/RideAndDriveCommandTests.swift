import Foundation
import HailCore
import HailProtocol
import HailServer
import HailTesting
import Testing

/// The two terminal apps against each other: `hail drive --auto` serves the ride `hail ride --json` asks for.
@Suite("hail ride and hail drive against the real server", .serialized)
struct RideAndDriveCommandTests {
    @Test func hailRideJSONShowsEveryStateInOrderAndExitsZero() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: HailCommandProcess.executable.path),
            "build the hail executable first (swift build --build-tests builds it beside the tests)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hail-ride-drive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let system = try await SystemServer(folder: folder)
        defer {
            Task {
                await system.stop()
                try? FileManager.default.removeItem(at: folder)
            }
        }
        let server = system.baseURL.absoluteString
        let driver = try HailCommandProcess(
            [
                "--server", server, "--token", system.token(.driver, "cli-driver"),
                "--start", "43.7390,7.4270", "--speed", "200", "--auto", "--json", "--trips", "1",
            ], command: "drive")
        // The rider requests once the driver's stream is up, so dispatch has someone to offer it to.
        let driverReady = await withDeadline(30) { () -> Bool in
            for await line in driver.lines where line.contains(#""link":"stream""#) { return true }
            return false
        }
        #expect(driverReady == true)
        // A cursor file of the test's own: the default one in the temporary folder is shared with every other run.
        let cursorPath = folder.appendingPathComponent("ride-cursor.sqlite").path
        let rider = try HailCommandProcess(
            [
                "--server", server, "--token", system.token(.rider, "cli-rider"), "--from", "43.7396,7.4276",
                "--to", "43.7380,7.4260", "--json", "--state", cursorPath,
            ], command: "ride")
        let phases = await withDeadline(90) { () -> [String] in
            var phases: [String] = []
            for await line in rider.lines {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let phase = object["phase"] as? String
                else { continue }
                if phases.last != phase { phases.append(phase) }
            }
            return phases
        }
        // A child that never ends fails the test instead of holding it: SIGKILL after the deadline.
        if phases == nil { rider.process.send(SIGKILL) }
        #expect(await rider.status() == 0)
        #expect(
            (phases ?? []).drop { $0 == "idle" } == [
                "searching", "driverAssigned", "driverArrived", "onTrip", "completed",
            ])
        let driverEnded = await withDeadline(30) { await driver.status() }
        if driverEnded == nil { driver.process.send(SIGKILL) }
        #expect(driverEnded == 0)
    }
}
