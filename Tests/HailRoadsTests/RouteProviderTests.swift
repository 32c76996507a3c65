import HailCore
import HailRoads
import Testing

@Suite("Route providers")
struct RouteProviderTests {
    static let city = GeneratedCity(seed: 42)
    static let graphProvider = GraphRouteProvider(router: RoadRouter(graph: city.graph))

    @Test("the graph provider gives the road route; the straight line a stretched great circle")
    func providers() throws {
        let graph = Self.city.graph
        let start = graph.coordinates[Int(Self.city.node(column: 0, row: 1))]
        let end = graph.coordinates[Int(Self.city.node(column: 7, row: 1))]
        let road = try #require(Self.graphProvider.advise(from: start, to: end))
        #expect(road.provider == "graph")
        #expect(Int((road.distance * 10).rounded()) == 10_739)
        #expect(Int((road.duration * 10).rounded()) == 966)
        let straight = try #require(StraightLineRouteProvider().advise(from: start, to: end))
        #expect(straight.provider == "straight-line")
        #expect(straight.coordinates == [start, end])
        #expect(straight.distance == start.distance(to: end) * 1.3)
        #expect(straight.duration == straight.distance / (25 / 3.6))
        #expect(StraightLineRouteProvider().advise(from: Coordinate(lat: 91, lng: 0), to: end) == nil)
        #expect(Self.graphProvider.advise(from: Coordinate(lat: 0, lng: 0), to: end) == nil)
    }
}
