import Foundation
import HailCore
import HailProtocol
import HailRoads
import HailServer
import HailTesting
import Testing

@Suite("Dispatch and estimates on real and generated roads")
struct RoadDispatchTests {
    /// Street 1 (one-way, eastbound) between avenues 3 and 4, `fraction` of the way east.
    static func onStreet1(_ fraction: Double) -> Coordinate {
        ServerHarness.corner(3, 1).interpolated(to: ServerHarness.corner(4, 1), fraction: fraction)
    }

    /// Two free drivers on a one-way street: "ahead" is past the pickup and nearer by straight line, but
    /// must drive round the block; "behind" is farther but drives straight to it.
    static func offeredDriver(_ h: ServerHarness) async -> [String] {
        await h.onlineDriver("driver-ahead", at: onStreet1(0.8))
        await h.onlineDriver("driver-behind", at: onStreet1(0.1))
        let pickup = onStreet1(0.5)
        let body = try! HailJSON.encodeString(EstimateRequest(pickup: pickup, dropoff: ServerHarness.corner(6, 0)))
            .replacingOccurrences(of: "}}", with: #"}, "productID": "economy"}"#)
        await h.call("POST", "/v1/trips", token: h.token(.rider, "rider-1"), json: body, key: UUID().uuidString)
        var offered: [String] = []
        for driver in ["driver-ahead", "driver-behind"]
        where await h.services.dispatcher.currentOffer(for: driver) != nil {
            offered.append(driver)
        }
        return offered
    }

    @Test func theFirstOfferGoesToTheDriverWithTheShortestRoadETA() async throws {
        let pickup = Self.onStreet1(0.5)
        #expect(Self.onStreet1(0.8).distance(to: pickup) < Self.onStreet1(0.1).distance(to: pickup))
        #expect(await Self.offeredDriver(ServerHarness(flags: "")) == ["driver-behind"])
        // By straight line alone the nearer driver gets it.
        #expect(
            await Self.offeredDriver(ServerHarness(flags: #"{"defaults": {"routeProvider": "straight-line"}}"#)) == [
                "driver-ahead"
            ])
    }

    @Test(.enabled(if: SharedData.file("osm/monaco.osm.pbf") != nil, "needs ../shared/data/osm/monaco.osm.pbf"))
    func anEstimateOnMonacoQuotesTheRouteOverItsStreets() async throws {
        let file = try #require(SharedData.file("osm/monaco.osm.pbf"))
        let h = await ServerHarness(flags: "", roads: .file(file.path))
        #expect(h.services.routing.problems.isEmpty)
        let network = try #require(h.services.routing.network)
        let pickup = ServerHarness.pickup
        let dropoff = ServerHarness.dropoff
        let route = try #require(network.router.route(from: pickup, to: dropoff))
        #expect(network.graph.nodeCount == 16_366)
        // 1,111 m apart as the crow flies; 2,844 m and 244 s round Monaco's one-way streets.
        #expect(Int(pickup.distance(to: dropoff).rounded()) == 1_111)
        #expect(h.services.estimator.distance(from: pickup, to: dropoff) == route.distance)
        #expect(Int(route.distance.rounded()) == 2_844)
        #expect(h.services.estimator.seconds(from: pickup, to: dropoff) == 244)
        let body = try HailJSON.encodeString(EstimateRequest(pickup: pickup, dropoff: dropoff))
        let response = await h.call("POST", "/v1/estimates", token: h.token(.rider, "rider-1"), json: body)
        let estimates = try HailJSON.decode([Estimate].self, from: response.body)
        #expect(estimates.map(\.fare) == [Money(amountMinor: 2_844 + 244, currency: "EUR")])
    }
}
