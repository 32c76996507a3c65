import Foundation
import HailCore
import HailProcess
import HailProtocol
import HailServer
import Testing

/// The fleet page in a real browser: headless Chromium loads `/` from the real server, runs its script
/// against `/v1/fleet/live`, and the DOM it leaves says what an operator would read.
@Suite("The fleet page in a real browser", .serialized)
struct FleetPageBrowserTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(.enabled(if: chromium != nil, "needs Chromium (scripts/setup.sh installs it on Debian)"))
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
        let url = "\(server.base)/?access_token=\(server.token(.operator, "ops"))"
        // Chromium's virtual time (`--virtual-time-budget`) runs ahead while no request is pending, and an open
        // WebSocket's next frame is not one: on a busy machine the DOM can be dumped before the stream's snapshot
        // arrives ("connecting…"). Each try loads the page afresh; the page must show the cars on one of them.
        var dom = ""
        for _ in 0..<5 {
            dom = try await Self.dumpDOM(url)
            if dom.contains(#"<span id="status">2 cars"#) { break }
        }
        #expect(dom.contains(#"<span id="status">2 cars"#), "\(dom.prefix(300))")
        // Leaflet came from the server's system copy and took the map's element.
        #expect(dom.contains("leaflet-container"), "\(dom.prefix(600))")
    }

    /// Runs headless Chromium on `url` and returns the DOM after the page's scripts ran.
    static func dumpDOM(_ url: String) async throws -> String {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hail-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let output = Pipe()
        let collected = Inbox<Data>()
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
            chromium!,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)",
                "--virtual-time-budget=5000", "--dump-dom", url,
            ], standardOutput: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        var dom = Data()
        while let chunk = await collected.next(within: 60) { dom.append(chunk) }
        if process.isRunning { process.send(SIGTERM) }
        // The pipe lives until here, so its read end stays open while the page is read.
        withExtendedLifetime(output) {}
        return String(decoding: dom, as: UTF8.self)
    }
}
