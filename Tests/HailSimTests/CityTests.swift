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
        let sessions = server.server.services.metrics.registry.render().split(separator: "\n").filter {
            $0.hasPrefix(#"hail_sessions_total{role="driver",version="1.0.0""#)
        }
        await server.stop()

        #expect(completed, "\(report.summary)")
        #expect(report.network == network)
        // Battery per driver-hour for each location policy: waiting (balanced, 50 m) and on the way or on the trip
        // (best, 5 m), each between its screen-and-GPS floor and the same with the radio always awake.
        let battery = Dictionary(uniqueKeysWithValues: (report.batteryPerDriverHour ?? []).map { ($0.policy, $0) })
        let onTrip = try #require(battery["best, 5 m"], "\(report.summary)")
        let waiting = try #require(battery["balanced, 50 m"], "\(report.summary)")
        // On the chaos network the radio can be awake the whole time: the ceiling itself, summed in floating point.
        let rounding = 1e-9
        #expect((1.0 * 3600 / 432...1.8 * 3600 / 432 + rounding).contains(onTrip.percentPerHour), "\(onTrip)")
        #expect((0.68 * 3600 / 432...1.48 * 3600 / 432 + rounding).contains(waiting.percentPerHour), "\(waiting)")
        #expect(onTrip.percentPerHour > waiting.percentPerHour)
        #expect(onTrip.driverHours > 0 && waiting.driverHours > 0)
        // Every driver's app reported its session in telemetry, by its phone's model.
        #expect(!sessions.isEmpty, "no driver sessions on /metrics")
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
