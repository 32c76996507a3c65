import Foundation
import HailCore
import HailProtocol
import HailRoads
import HailServer
import HailSim
import Testing

@Suite("The simulated city against the real server", .serialized)
@MainActor
struct CityTests {
    @Test func driversAndRidersCompleteATripWithAFare() async throws {
        let server = try await SimServer.start()
        var configuration = CityConfiguration()
        configuration.drivers = 3
        configuration.riders = 2
        configuration.seed = 7
        configuration.requestInterval = 1
        configuration.acceptProbability = 1
        configuration.cancelProbability = 0
        configuration.speedFactor = 2
        configuration.boardingSeconds = 1
        let map = GeneratedCity(seed: 3, columns: 4, rows: 4, blockMeters: 80)
        let city = City(
            configuration: configuration, server: server.baseURL, tokens: server.minter, graph: map.graph,
            clock: ContinuousClock(), origin: Date())
        let runner = Task { await city.run() }
        // A deadline, not a wait: stopping the city makes `waitUntil` answer false.
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) { runner.cancel() }
        let completed = await city.waitUntil { $0.completed >= 1 }

        let operatorToken = server.minter(.operator, "operator-test")
        let fleet = try await server.get(Routes.fleet.template, token: operatorToken)
        let roads = try await server.get(Routes.fleetRoads.template, token: operatorToken)
        runner.cancel()
        await runner.value
        await server.stop()

        #expect(completed, "no trip completed: \(city.report.summary)")
        #expect(city.report.requested >= 1)
        #expect(!city.report.fares.isEmpty)
        #expect(city.report.fares.allSatisfy { $0.currency == "EUR" && $0.amountMinor > 0 })
        #expect(city.report.versionRegressions == 0)
        #expect(fleet.status == 200)
        let snapshot = try HailJSON.decode(FleetSnapshot.self, from: fleet.body)
        #expect(!snapshot.cars.isEmpty)
        #expect(snapshot.cars.allSatisfy { $0.driverID.hasPrefix("sim-driver-") })
        // This server runs without a road network: the map draws the cars' trails instead.
        #expect(try HailJSON.decode(RoadMap.self, from: roads.body).segments.isEmpty)
    }

    @Test(arguments: ["3g", "chaos"])
    func onABadNetworkNoCarGoesBackAndNoTripEventIsLostOrDoubled(network: String) async throws {
        let map = GeneratedCity(seed: 3, columns: 5, rows: 5, blockMeters: 80)
        let server = try await SimServer.start(roads: .loaded(RoadNetwork(graph: map.graph)))
        var configuration = CityConfiguration()
        configuration.drivers = 4
        configuration.riders = 3
        configuration.seed = 11
        configuration.requestInterval = 1
        configuration.acceptProbability = 1
        configuration.cancelProbability = 0
        configuration.speedFactor = 2
        configuration.boardingSeconds = 1
        configuration.network = try #require(NetworkProfile.named(network))
        if network == "chaos" {
            // A kill every minute or so per app, so a short run sees some.
            configuration.network.appKillsPerHour = 60
        }
        let city = City(
            configuration: configuration, server: server.baseURL, tokens: server.minter, graph: map.graph,
            clock: ContinuousClock(), origin: Date())
        let runner = Task { await city.run() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 150) { runner.cancel() }
        let completed = await city.waitUntil { $0.completed >= 3 }
        let report = city.measuredReport(map: "generated", grace: 45)
        runner.cancel()
        await runner.value
        await server.stop()

        #expect(completed, "\(report.summary)")
        #expect(report.network == network)
        #expect(report.trips.completedWithFare >= 3)
        #expect(report.backwardMoves == 0)
        #expect(report.tripEventsLost == 0)
        #expect(report.tripEventsDuplicated == 0)
        #expect(report.freshnessSeconds.samples > 0)
    }

    @Test func fleetIsForOperatorsAndThePageCarriesTheFleetScript() async throws {
        let server = try await SimServer.start(roads: .generatedCity(seed: 1))
        let operatorToken = server.minter(.operator, "operator-test")
        let fleet = try await server.get(Routes.fleet.template, token: operatorToken)
        let asRider = try await server.get(Routes.fleet.template, token: server.minter(.rider, "rider-test"))
        let page = try await server.get(Routes.fleetMap.template, token: operatorToken)
        let roads = try await server.get(Routes.fleetRoads.template, token: operatorToken)
        let roadsAsDriver = try await server.get(Routes.fleetRoads.template, token: server.minter(.driver, "d"))
        let offEarth = try await server.get(Routes.fleet.template + "?lat=91&lng=7.42", token: operatorToken)
        await server.stop()

        #expect(fleet.status == 200)
        let snapshot = try HailJSON.decode(FleetSnapshot.self, from: fleet.body)
        #expect(snapshot.cars.isEmpty)
        #expect(snapshot.trips.isEmpty)
        #expect(asRider.status == 403)
        #expect(offEarth.status == 400)
        #expect(try HailJSON.decode(ErrorBody.self, from: offEarth.body).error.field == "lat")
        #expect(roads.status == 200)
        #expect(roadsAsDriver.status == 403)
        let map = try HailJSON.decode(RoadMap.self, from: roads.body)
        // Each street once: the generated city's two-way streets are two edges but one segment.
        let graph = GeneratedCity(seed: 1).graph
        let streets = Set(graph.edges.map { [min($0.source, $0.target), max($0.source, $0.target)] })
        #expect(map.segments.count == streets.count * 4)
        #expect(map == RoadMap(graph: graph))
        #expect(page.status == 200)
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains(#"<script id="fleet-script">"#))
        // The console follows the operator's stream and draws on the server's own Leaflet.
        #expect(html.contains("/v1/fleet/live?access_token="))
        #expect(html.contains(#"<script src="/assets/leaflet/leaflet.js"></script>"#))
    }
}
