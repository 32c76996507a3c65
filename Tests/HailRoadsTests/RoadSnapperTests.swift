import HailCore
import HailRoads
import HailTesting
import Testing

@Suite("Snapping")
struct RoadSnapperTests {
    /// A point `meters` north of `coordinate`.
    static func north(of coordinate: Coordinate, meters: Double) -> Coordinate {
        Coordinate(lat: coordinate.lat + meters / 111_195.08, lng: coordinate.lng)
    }

    @Test(
        "Monaco: the Casino snaps onto Place du Casino, the way a heading says",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func casino() throws {
        let graph = try #require(MonacoFixture.graph)
        let snapper = RoadSnapper(graph: graph)
        let casino = Coordinate(lat: 43.7396, lng: 7.4276)
        let nearest = try #require(snapper.snap(casino))
        #expect(graph.road(ofEdge: nearest.edge).name == "Place du Casino")
        #expect(Int((nearest.distance * 100).rounded()) == 291)
        #expect(nearest.coordinate.distance(to: casino) < nearest.distance + 0.01)
        let withHeading = try #require(snapper.snap(casino, heading: nearest.bearing))
        #expect(withHeading.edge == nearest.edge)
        let opposite = try #require(snapper.snap(casino, heading: Heading.normalized(nearest.bearing + 180)))
        #expect(opposite.edge != nearest.edge)
        #expect(abs(Heading.shortestTurn(from: nearest.bearing + 180, to: opposite.bearing)) <= 60)
        // Candidates come nearest first, each within the radius.
        let candidates = snapper.candidates(near: casino, radius: 50)
        #expect(candidates.count == 54)
        #expect(zip(candidates, candidates.dropFirst()).allSatisfy { $0.distance <= $1.distance })
        #expect(candidates.allSatisfy { $0.distance <= 50 })
    }

    @Test(
        "Monaco: every candidate the grid finds is the one a full scan finds",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func gridMatchesScan() throws {
        let graph = try #require(MonacoFixture.graph)
        let snapper = RoadSnapper(graph: graph, cellSize: 75)
        var generator = SplitMix64(seed: 5)
        for _ in 0..<20 {
            let point = Coordinate(
                lat: Double.random(in: 43.725...43.750, using: &generator),
                lng: Double.random(in: 7.405...7.440, using: &generator))
            let grid = snapper.candidates(near: point, radius: 80).map(\.edge)
            let scan = RoadSnapper(graph: graph, cellSize: 100_000).candidates(near: point, radius: 80).map(\.edge)
            #expect(grid == scan)
        }
    }

    @Test("generated city: a fix against a one-way street goes to the next street that allows it")
    func oneWayHeading() throws {
        let city = GeneratedCity(seed: 42)
        let snapper = RoadSnapper(graph: city.graph)
        // Street 2 (row 1) is one-way eastbound; Street 3 (row 2) is two-way.
        let a = city.graph.coordinates[Int(city.node(column: 2, row: 1))]
        let b = city.graph.coordinates[Int(city.node(column: 3, row: 1))]
        let point = Self.north(of: a.interpolated(to: b, fraction: 0.5), meters: 10)
        let east = try #require(snapper.snap(point, heading: 90, radius: 200))
        #expect(city.graph.road(ofEdge: east.edge).name == "Street 2")
        let west = try #require(snapper.snap(point, heading: 270, radius: 200))
        #expect(city.graph.road(ofEdge: west.edge).name == "Street 3")
        #expect(abs(Heading.shortestTurn(from: 270, to: west.bearing)) <= 60)
        // With nothing plausible in range the nearest road still wins: better on a road than nowhere.
        let fallback = try #require(snapper.snap(point, heading: 270, radius: 30))
        #expect(fallback.edge == east.edge)
        // On a two-way avenue the heading picks the direction.
        let avenue = city.graph.coordinates[Int(city.node(column: 1, row: 4))]
        let northbound = try #require(snapper.snap(Self.north(of: avenue, meters: 40), heading: 10))
        let southbound = try #require(snapper.snap(Self.north(of: avenue, meters: 40), heading: 190))
        #expect(city.graph.road(ofEdge: northbound.edge).name == "Avenue 2")
        #expect(city.graph.road(ofEdge: southbound.edge).name == "Avenue 2")
        #expect(abs(Heading.shortestTurn(from: 0, to: northbound.bearing)) < 30)
        #expect(abs(Heading.shortestTurn(from: 180, to: southbound.bearing)) < 30)
    }

    @Test("nothing in range, or off the map, snaps to nothing")
    func offMap() {
        let snapper = RoadSnapper(graph: GeneratedCity(seed: 1).graph)
        #expect(snapper.snap(Coordinate(lat: 0, lng: 0)) == nil)
        #expect(snapper.snap(Coordinate(lat: 43.80, lng: 7.42)) == nil)
        #expect(RoadSnapper(graph: RoadGraphBuilder().build()).snap(Coordinate(lat: 0, lng: 0)) == nil)
    }
}
