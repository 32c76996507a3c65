import Foundation
import HailCore
import HailProcess
import HailProtocol
import HailServer
import HailTesting
import Testing

/// The fleet page in a real browser: headless Chromium, driven by Selenium (`Tests/Browser/check_fleet_page.py`),
/// loads `/` from the real server, runs its script against `/v1/fleet/live`, and the page says what an operator
/// would read.
@Suite("The fleet page in a real browser", .serialized)
struct FleetPageBrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Browser/check_fleet_page.py")
    static let ready =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
        && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/selenium")

    @Test(.enabled(if: ready, "needs chromium, chromium-driver and python3-selenium (scripts/setup.sh)"))
    func theFleetPageShowsTheOnlineCars() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { await server.stop() } }
        for (index, coordinate) in [Coordinate(lat: 43.7400, lng: 7.4280), Coordinate(lat: 43.7350, lng: 7.4200)]
            .enumerated()
        {
            let token = server.token(.driver, "driver-\(index)")
            _ = try await server.http("POST", "/v1/drivers/me/status", token: token, body: #"{"online": true}"#)
            let point = try HailJSON.encodeString(
                LocationBatch(
                    seq: 1,
                    points: [
                        LocationPoint(
                            lat: coordinate.lat, lng: coordinate.lng, accuracy: 5, heading: 0, speed: 0, t: Date())
                    ]))
            _ = try await server.http("POST", "/v1/drivers/me/locations", token: token, body: point)
        }
        // One driver's session, a crash before it, ten minutes on battery losing 2 points: the side panel's numbers.
        let start = Date()
        let samples = (0...1).map { index in
            DeviceSample(
                at: start.addingTimeInterval(Double(index) * 600), batteryLevel: 0.8 - Double(index) * 0.02,
                batteryState: .unplugged, thermalState: .nominal, lowPower: false, active: true, degraded: index == 0)
        }
        let telemetry = try HailJSON.encodeString(
            TelemetryBatch(
                sessionID: UUID().uuidString.lowercased(), startsSession: true, previousSessionCrashed: true,
                appVersion: "1.4.0", deviceModel: "iPhone13,2", samples: samples))
        _ = try await server.http("POST", "/v1/telemetry", token: server.token(.driver, "driver-0"), body: telemetry)
        let url = "\(server.base)/?access_token=\(server.token(.operator, "ops"))"
        // The script waits for the status line on the real clock: Chromium's `--dump-dom` under virtual time
        // could dump the page before the stream's snapshot arrived on a busy machine ("connecting…").
        let output = try await Self.run(["--url", url, "--status-prefix", "2 cars"])
        let page = try #require(
            try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
        #expect((page["status"] as? String)?.hasPrefix("2 cars") == true, "\(page)")
        // Leaflet came from the server's system copy and took the map's element.
        #expect(page["leaflet"] as? Bool == true, "\(page)")
        // The side panel shows the design's numbers.
        let numbers = try #require(page["operability"] as? [String: String], "\(page)")
        #expect(numbers["n-crash-free"] == "0.0% of 1")
        #expect(numbers["n-battery"] == "12.0 %/h")
        #expect(numbers["n-degraded-share"] == "100.0%")
        #expect(numbers["n-resync"] == "–")
        #expect(numbers["n-refused"] == "0")
        #expect(numbers["n-flags"] == "0 cohorts")
    }

    /// Runs the script with `arguments` and returns the last line it printed.
    static func run(_ arguments: [String]) async throws -> String {
        let output = Pipe()
        let collected = Mailbox<Data>()
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                Task { await collected.finish() }
            } else {
                Task { await collected.put(data) }
            }
        }
        let process = try ChildProcess.start(
            "/usr/bin/python3", [script.path] + arguments, standardOutput: output.fileHandleForWriting.fileDescriptor,
            standardError: FileHandle.standardError.fileDescriptor)
        try output.fileHandleForWriting.close()
        var text = Data()
        while let chunk = await collected.nextOrNil(within: 120) { text.append(chunk) }
        if process.isRunning { process.send(SIGTERM) }
        // The pipe lives until here, so its read end stays open while the output is read.
        withExtendedLifetime(output) {}
        return String(decoding: text, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
    }
}
