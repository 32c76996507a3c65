import Foundation
import HailCore
import HailProtocol
import HailRoads
import HailServer
import Testing

@Suite("Route seam: providers per cohort, checks and fallbacks")
struct RouteSeamTests {
    /// A provider that always answers the same thing, however wrong.
    struct FixedProvider: RouteProvider {
        let name = "fixed"
        let advice: RouteAdvice?

        func advise(from start: Coordinate, to end: Coordinate) -> RouteAdvice? { advice }
    }

    static let a = Coordinate(lat: 43.7396, lng: 7.4276)
    static let b = Coordinate(lat: 43.7314, lng: 7.4197)

    @Test func theFlagsPickTheProviderByAppAndVersionLaterCohortsWinning() {
        var configuration = ServerConfiguration()
        configuration.roads = .generatedCity(seed: 1)
        configuration.flags = .text(
            """
            {"cohorts": [
              {"name": "riders", "match": {"app": "hail-rider"}, "flags": {"routeProvider": "straight-line"}},
              {"name": "two", "match": {"app": "hail-rider", "version": "2.0.0"}, "flags": {"routeProvider": "graph"}}
            ]}
            """)
        let routing = ServerRouting(configuration: configuration)
        #expect(routing.problems.isEmpty)
        func provider(_ client: ClientInfo?) -> String {
            routing.provider(for: .rider("r", client: client, at: nil)).name
        }
        #expect(provider(ClientInfo(app: "hail-rider", version: "1.9.0")) == "straight-line")
        #expect(provider(ClientInfo(app: "hail-rider", version: "2.0.0")) == "graph")
        #expect(provider(ClientInfo(app: "hail-driver", version: "1.9.0")) == "graph")
        #expect(provider(nil) == "graph")
    }

    @Test func withoutRoadsEveryoneGetsTheStraightLineAndAGraphFlagIsReported() {
        var configuration = ServerConfiguration()
        configuration.flags = .text(#"{"defaults": {"routeProvider": "graph"}}"#)
        let routing = ServerRouting(configuration: configuration)
        #expect(
            routing.problems == [
                "flags file (text): line 1: defaults.routeProvider: must be one of straight-line, not \"graph\""
                    + " (graph needs hail server --roads)"
            ])
        #expect(routing.provider(for: nil).name == "straight-line")
        #expect(routing.roads(for: nil) == nil)
        // 1.3 times the 1,111 m crow's flight at 30 km/h, as quoted before road routing.
        #expect(routing.estimator(for: nil).seconds(from: Self.a, to: Self.b) == 173)
    }

    @Test func aRoadFileThatCannotBeReadLeavesTheServerOnStraightLines() {
        var configuration = ServerConfiguration()
        configuration.roads = .file("/nonexistent/roads.osm.pbf")
        let routing = ServerRouting(configuration: configuration)
        #expect(routing.network == nil)
        #expect(routing.problems.count == 1)
        #expect(routing.problems.first?.hasPrefix("road network: ") == true)
        #expect(routing.provider(for: nil).name == "straight-line")
    }

    @Test func implausibleOrMissingAdviceIsReplacedByTheStraightLine() {
        let straight = RouteEstimator.straightLine.advise(from: Self.a, to: Self.b)
        let absurd = RouteAdvice(distance: 500_000, duration: 20_000, coordinates: [Self.a, Self.b], provider: "fixed")
        let negative = RouteAdvice(distance: -1, duration: 10, coordinates: [Self.a, Self.b], provider: "fixed")
        let endless = RouteAdvice(distance: .infinity, duration: 10, coordinates: [Self.a, Self.b], provider: "fixed")
        for advice in [nil, absurd, negative, endless] {
            let estimator = RouteEstimator(provider: FixedProvider(advice: advice))
            #expect(estimator.advice(from: Self.a, to: Self.b) == straight)
        }
        let fine = RouteAdvice(distance: 2_844, duration: 244, coordinates: [Self.a, Self.b], provider: "fixed")
        let estimator = RouteEstimator(provider: FixedProvider(advice: fine))
        #expect(estimator.distance(from: Self.a, to: Self.b) == 2_844)
        #expect(estimator.seconds(from: Self.a, to: Self.b) == 244)
    }
}
