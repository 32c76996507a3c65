import Foundation
import HailClient
import HailCore
import HailProcess
import HailProtocol
import HailRoads
import HailServer
import HailSim
import HailTesting
import Testing

/// The pages in a real browser, driven by Selenium (`Tests/Browser/check_pages.py`) against a real server
/// with a simulated city on it: the map draws roads, cars move between two screenshots, the share page
/// shows the right trip and an expired link is refused. Screenshots are kept; the test prints where.
@Suite("The pages in a browser, driven by Selenium", .serialized)
@MainActor
struct BrowserPagesTests {
    nonisolated static let python = "/usr/bin/python3"
    nonisolated static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Browser/check_pages.py")
    nonisolated static let ready =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
        && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/selenium")

    @Test(.enabled(if: ready, "needs chromium, chromium-driver and python3-selenium (scripts/setup.sh)"))
    func theMapDrawsRoadsCarsMoveAndTheSharePageShowsItsTripAlone() async throws {
        let map = GeneratedCity(seed: 2, columns: 5, rows: 5, blockMeters: 90)
        let server = try await SimServer.start(roads: .loaded(RoadNetwork(graph: map.graph)))
        var configuration = CityConfiguration()
        configuration.drivers = 5
        configuration.riders = 3
        configuration.seed = 5
        configuration.requestInterval = 1
        configuration.speedFactor = 2
        let city = City(
            configuration: configuration, server: server.baseURL, tokens: server.minter, graph: map.graph,
            clock: ContinuousClock(), origin: Date())
        let runner = Task { await city.run() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 240) { runner.cancel() }
        // The page's trip: one more rider's, shared.
        let (trip, link) = try await SharePageTests.sharedTrip(on: server, rider: "rider-browser")
        let now = Int64(Date().timeIntervalSince1970)
        let expired = server.tokens.mint(
            AccessToken(role: .share, sub: "share-expired", exp: now - 60, iat: now - 3600, trip: trip.id))
        let artefacts = FileManager.default.temporaryDirectory.appendingPathComponent("hail-browser-\(UUID())")
        let result = try await Self.runScript([
            "--base", server.baseURL.absoluteString, "--operator-token", server.minter(.operator, "ops"),
            "--share-token", link.token, "--trip-id", trip.id, "--expired-token", expired,
            "--artefacts", artefacts.path, "--cars", "5",
        ])
        runner.cancel()
        await runner.value
        await server.stop()
        print("Browser screenshots: \(artefacts.path)")

        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(result.utf8)) as? [String: Any], "\(result)")
        // Every street of the city, once, as one vector layer.
        #expect(json["roads"] as? Int == RoadMap(graph: map.graph).segments.count / 4, "the map draws the streets")
        #expect((json["cars"] as? Int ?? 0) >= 5)
        #expect((json["carsMoved"] as? Int ?? 0) >= 1, "a car moved between the two screenshots")
        #expect(json["shareTrip"] as? String == trip.id)
        #expect(json["shareLoadedTrip"] as? String == trip.id)
        // The whole small city lies within the share page's 600 m around the trip: it draws every street.
        #expect(json["shareRoads"] as? Int == RoadMap(graph: map.graph).segments.count / 4)
        #expect(json["expired"] as? String == "This link has expired.")
        // The console: the zoom control zooms in by one step; the clicked car's card names its driver, car
        // and plate as the server's directory has them, and its trip with the version the page holds.
        #expect(json["zoomedBy"] as? Double == 1)
        let clicked = try #require(json["clickedDriver"] as? String)
        #expect(json["selected"] as? String == clicked)
        let card = try #require(json["card"] as? [String: String], "\(json)")
        let driver = await GeneratedDriverDirectory().card(for: clicked)
        #expect(card["driver"] == "\(driver.name) (\(clicked))")
        #expect(card["car"] == driver.carModel)
        #expect(card["plate"] == driver.plate)
        if let trip = json["cardTrip"] as? [Any], let id = trip.first as? String, let version = trip.last as? Int {
            #expect(card["trip"] == id)
            #expect(card["version"] == String(version))
        } else {
            #expect(card["trip"] == "no trip")
        }
        #expect(card["age"]?.hasSuffix(" s ago") == true, "\(card)")
        #expect((json["screenshots"] as? [String])?.count == 5)
        for shot in json["screenshots"] as? [String] ?? [] {
            #expect(FileManager.default.fileExists(atPath: shot), "\(shot)")
        }
    }

    /// Runs the Selenium script to its end and returns its last line of output.
    static func runScript(at path: URL = script, _ arguments: [String]) async throws -> String {
        let output = Pipe()
        let process = try ChildProcess.start(
            python, [path.path] + arguments, standardOutput: output.fileHandleForWriting.fileDescriptor,
            standardError: FileHandle.standardError.fileDescriptor)
        try output.fileHandleForWriting.close()
        DispatchQueue.global().asyncAfter(deadline: .now() + 180) { if process.isRunning { process.send(SIGTERM) } }
        // Read on a thread of its own: a task blocked here would hold a pool thread for the whole script, and
        // with another such wait elsewhere in the suite the city's apps and the server would stop.
        let text = try await onItsOwnThread {
            String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        _ = await process.waitForExit()
        return text.split(separator: "\n").last.map(String.init) ?? ""
    }
}
