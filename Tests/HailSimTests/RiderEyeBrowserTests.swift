import Foundation
import HailCore
import HailProtocol
import HailRoads
import HailServer
import HailSim
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The console of a demo server in a real browser (Selenium, `Tests/Browser/check_rider_eye.py`): a car on
/// a trip opens to what its simulated rider's screen shows, a dead zone pressed for its driver turns that
/// rider's pin from live to updating, and it comes back. Screenshots are kept; the test prints where.
///
/// In `BrowserPagesTests`, whose tests run one at a time: two simulated cities and browsers at once on a
/// small machine starve each other past any deadline.
extension BrowserPagesTests {
    @Test(
        .enabled(if: BrowserPagesTests.ready, "needs chromium, chromium-driver and python3-selenium (scripts/setup.sh)")
    )
    func aPressedDeadZoneTurnsTheRidersPinFromLiveToUpdating() async throws {
        // Longer streets than the other browser test's, so a trip outlasts the dead zone.
        let map = GeneratedCity(seed: 3, columns: 8, rows: 8, blockMeters: 160)
        let console = DemoConsole()
        let server = try await SimServer.start(roads: .loaded(RoadNetwork(graph: map.graph)), demo: console)
        var configuration = CityConfiguration()
        configuration.drivers = 6
        configuration.riders = 4
        configuration.seed = 11
        configuration.requestInterval = 1
        configuration.minimumTripMeters = 800
        configuration.pressableFaults = true
        let city = City(
            configuration: configuration, server: server.baseURL, tokens: server.minter, graph: map.graph,
            clock: ContinuousClock(), origin: Date())
        console.attach(CityConsole(city: city))
        let runner = Task { await city.run() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 240) { runner.cancel() }
        let artefacts = FileManager.default.temporaryDirectory.appendingPathComponent("hail-rider-eye-\(UUID())")
        let operatorToken = server.minter(.operator, "ops")
        let result = try await BrowserPagesTests.runScript(
            at: BrowserPagesTests.script.deletingLastPathComponent().appendingPathComponent("check_rider_eye.py"),
            ["--base", server.baseURL.absoluteString, "--operator-token", operatorToken, "--artefacts", artefacts.path])
        runner.cancel()
        await runner.value
        print("Rider's-eye screenshots: \(artefacts.path)")

        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(result.utf8)) as? [String: Any], "\(result)")
        let driverID = try #require(json["driver"] as? String, "\(json)")
        #expect(json["riderShown"] as? String == "block")
        #expect(json["answer"] as? String == "\(driverID) is in a dead zone for 20 s")
        let pins = json["pins"] as? [String] ?? []
        #expect(pins.first == "live", "\(pins)")
        #expect(pins.dropFirst().first == "updating", "the pin ages past 6 s in the dead zone: \(pins)")
        #expect(json["bannerWhileDead"] is String)
        // How long after the press the pin turned is not asserted: the shown fix was already up to a few seconds old
        // when the dead zone was pressed, so it crosses 6 s anywhere from at once to 6 s later.
        print(
            "Rider's pin after the dead zone: \(pins), updating after \(json["secondsToUpdating"] ?? "-") s,"
                + " live again after \(json["secondsToLiveAgain"] ?? "-") s")

        // The same routes on a server that is not a demo: 404, nothing to press.
        let production = try await SimServer.start()
        var request = URLRequest(url: production.baseURL.appendingPathComponent("v1/demo/trips/trip-1/rider"))
        request.setValue("Bearer \(production.minter(.operator, "ops"))", forHTTPHeaderField: "Authorization")
        let (body, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 404)
        #expect(String(decoding: body, as: UTF8.self).contains("exists only in `hail demo`"))
        await production.stop()
        await server.stop()
    }
}
