import Foundation
import Testing

/// `hail demo`'s console restarting its own server, as a person would press it: the page loses its stream,
/// reconnects to the new server on the same port, and gets the fleet again from a new snapshot
/// (`Tests/Browser/check_demo_restart.py`). The screenshot is kept; the test prints where.
@Suite("hail demo's console restarts the server", .serialized)
struct DemoRestartBrowserTests {
    @Test(
        .enabled(if: BrowserPagesTests.ready, "needs chromium, chromium-driver and python3-selenium (scripts/setup.sh)")
    )
    func aPressedRestartComesBackWithTheFleet() async throws {
        guard FileManager.default.isExecutableFile(atPath: SimCommandTests.executable.path) else { return }
        // An empty directory: no ../shared/data there, so the demo runs the generated city, in ./.hail.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hail-demo-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let artefacts = FileManager.default.temporaryDirectory.appendingPathComponent("hail-demo-shots-\(UUID())")
        let result = try await BrowserPagesTests.runScript(
            at: BrowserPagesTests.script.deletingLastPathComponent().appendingPathComponent("check_demo_restart.py"),
            ["--hail", SimCommandTests.executable.path, "--directory", directory.path, "--artefacts", artefacts.path])
        print("Demo restart screenshot: \(artefacts.path)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(result.utf8)) as? [String: Any], "\(result)")
        #expect(json["answer"] as? String == "the server restarts now, on the same port and database")
        #expect(json["snapshotsBefore"] as? Int == 1)
        #expect(json["snapshotsAfter"] as? Int == 2)
        #expect(json["carsAfter"] as? Int == 6)
        #expect(json["restartedLine"] as? Bool == true)
        #expect(json["exitCode"] as? Int == 0)
    }
}
