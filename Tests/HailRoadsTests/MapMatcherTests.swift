import Foundation
import HailCore
import HailRoads
import HailTesting
import Testing

@Suite("Map matching")
struct MapMatcherTests {
    /// Points every `spacing` metres along `path`, each moved by Gaussian noise of `sigma` metres.
    static func noisyTrace(
        along path: [Coordinate], spacing: Double, sigma: Double, generator: inout SplitMix64
    ) -> [Coordinate] {
        let length = path.pathLength
        let count = Int(length / spacing)
        return (0...count).map { index in
            let point = path.point(atFraction: Double(index) * spacing / length)!.coordinate
            // Box-Muller: two uniforms give two independent standard normals.
            let u1 = Double.random(in: Double.ulpOfOne..<1, using: &generator)
            let u2 = Double.random(in: 0..<1, using: &generator)
            let radius = (-2 * log(u1)).squareRoot() * sigma
            let north = radius * cos(2 * .pi * u2)
            let east = radius * sin(2 * .pi * u2)
            return Coordinate(
                lat: point.lat + north / 111_195.08,
                lng: point.lng + east / (111_195.08 * cos(point.lat * .pi / 180)))
        }
    }

    /// The share of the true route's length that the matched edges cover.
    static func recovered(_ truth: Route, _ match: MapMatch, _ graph: RoadGraph) -> Int {
        let matched = Set(match.edges)
        let total = truth.edges.map { graph.edges[$0].length }.reduce(0, +)
        let found = truth.edges.filter(matched.contains).map { graph.edges[$0].length }.reduce(0, +)
        return Int((found / total * 1000).rounded())
    }

    @Test(
        "Monaco: a noisy 1-per-25 m trace of the Casino-Palace drive is recovered",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func monacoDrive() throws {
        let graph = try #require(MonacoFixture.graph)
        let router = RoadRouter(graph: graph)
        let truth = try #require(
            router.route(from: Coordinate(lat: 43.7396, lng: 7.4276), to: Coordinate(lat: 43.7314, lng: 7.4197)))
        var generator = SplitMix64(seed: 2009)
        let trace = Self.noisyTrace(along: truth.coordinates, spacing: 25, sigma: 5, generator: &generator)
        #expect(trace.count == 114)
        let match = MapMatcher(router: router).match(trace)
        #expect(match.breaks == 0)
        // Fixes within 2 sigma of the last one used are skipped (Newson and Krumm); none is off the roads.
        let skipped = trace.indices.filter { match.points[$0] == nil }
        #expect(skipped.count == 3)
        #expect(skipped.allSatisfy { !router.snapper.candidates(near: trace[$0], radius: 50).isEmpty })
        #expect(Int(match.distance.rounded()) == 2_837)
        #expect(Int(truth.distance.rounded()) == 2_844)
        #expect(Self.recovered(truth, match, graph) == 1_000)
        #expect(Int(match.coordinates.pathLength.rounded()) == Int(match.distance.rounded()))
    }

    @Test(
        "Monaco: searches bounded by the best score find the same route as searches to the limit, a fix every 10-150 m",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func prunedSearchesMatchTheSame() throws {
        let graph = try #require(MonacoFixture.graph)
        let router = RoadRouter(graph: graph)
        let bounded = MapMatcher(router: router)
        var exhaustive = bounded
        exhaustive.pruneMargin = .infinity
        let truth = try #require(
            router.route(from: Coordinate(lat: 43.7396, lng: 7.4276), to: Coordinate(lat: 43.7314, lng: 7.4197)))
        var generator = SplitMix64(seed: 42)
        var recovered: [Int] = []
        for spacing in [10.0, 25, 60, 150] {
            for _ in 0..<2 {
                let trace = Self.noisyTrace(along: truth.coordinates, spacing: spacing, sigma: 5, generator: &generator)
                let match = bounded.match(trace)
                let reference = exhaustive.match(trace)
                #expect(match.edges == reference.edges, "spacing \(spacing)")
                #expect(match.distance == reference.distance, "spacing \(spacing)")
                #expect(match.breaks == 0)
                recovered.append(Self.recovered(truth, match, graph))
            }
        }
        // Per mille of the route recovered, two traces at each spacing, the same as searches to the limit recover.
        #expect(recovered == [970, 995, 963, 1_000, 963, 933, 930, 930])
    }

    @Test("generated city: a sparse noisy trace (one fix per 150 m) follows the one-way detour")
    func citySparse() throws {
        let city = GeneratedCity(seed: 42)
        let router = RoadRouter(graph: city.graph)
        let truth = try #require(
            router.route(fromNode: city.node(column: 7, row: 1), toNode: city.node(column: 0, row: 1)))
        var generator = SplitMix64(seed: 15)
        let trace = Self.noisyTrace(along: truth.coordinates, spacing: 150, sigma: 5, generator: &generator)
        let match = MapMatcher(router: router).match(trace)
        #expect(trace.count == 12)
        #expect(match.breaks == 0)
        #expect(Int(match.distance.rounded()) == 1_651)
        #expect(Int(truth.distance.rounded()) == 1_662)
        #expect(Self.recovered(truth, match, city.graph) == 1_000)
        // Never against the one-way street it runs beside.
        #expect(!match.edges.contains { city.graph.road(ofEdge: $0).name == "Street 2" })
    }

    @Test("generated city: a car driving against a one-way street is charged the stretch, not loops round the block")
    func cityAgainstAOneWayStreet() throws {
        let city = GeneratedCity(seed: 42)
        let router = RoadRouter(graph: city.graph)
        // Row 1 (Street 2) is one-way eastbound; the car drives it westbound from column 5 to column 2, with a fix
        // every 25 m (a 2-4 s interval in town) and 3 m of noise.
        let path = (2...5).reversed().map { city.graph.coordinates[Int(city.node(column: $0, row: 1))] }
        #expect(router.route(fromNode: city.node(column: 5, row: 1), toNode: city.node(column: 2, row: 1)) != nil)
        var generator = SplitMix64(seed: 14)
        let trace = Self.noisyTrace(along: path, spacing: 25, sigma: 3, generator: &generator)
        let match = MapMatcher(router: router).match(trace)
        // 18 fixes, the last 425 m along the 446 m of street. Matched as legal paths only, the trace broke
        // eight times and the rest went round the block by Avenues 3 to 6.
        #expect(trace.count == 18)
        let driven = Double(trace.count - 1) * 25
        #expect(match.breaks == 0)
        #expect(Int(match.distance.rounded()) == 423)
        #expect(abs(match.distance - driven) <= 0.03 * driven)
        // On the street it drove, nowhere else.
        #expect(Set(match.edges.map { city.graph.road(ofEdge: $0).name }) == ["Street 2"])
    }

    @Test("generated city: a fix's course puts it on the side of a two-way avenue the car drives")
    func aCoursePicksTheWayAlongATwoWayAvenue() throws {
        let city = GeneratedCity(seed: 42)
        let graph = city.graph
        let matcher = MapMatcher(router: RoadRouter(graph: graph))
        // Avenue 2 (column 1) is two-way: one edge each way between rows 1 and 2.
        let north = city.node(column: 1, row: 1)
        let south = city.node(column: 1, row: 2)
        let up = try #require(graph.outgoingEdges(of: north).first { graph.edges[$0].target == south })
        let down = try #require(graph.outgoingEdges(of: south).first { graph.edges[$0].target == north })
        let a = graph.coordinates[Int(north)]
        let b = graph.coordinates[Int(south)]
        let middle = a.interpolated(to: b, fraction: 0.5)
        let bearing = a.bearing(to: b)
        #expect(matcher.match([TraceFix(coordinate: middle, course: bearing)]).points[0]?.edge == up)
        #expect(
            matcher.match([TraceFix(coordinate: middle, course: Heading.normalized(bearing + 180))]).points[0]?.edge
                == down)
        // Turned 30 degrees off the avenue, the course still says which way.
        #expect(
            matcher.match([TraceFix(coordinate: middle, course: Heading.normalized(bearing + 210))]).points[0]?.edge
                == down)
    }

    @Test("a phone's heading is a course only when known and at 3 m/s or more")
    func aHeadingIsACourseOnlyAtDrivingSpeed() {
        let here = Coordinate(lat: 43.74, lng: 7.42)
        #expect(TraceFix(coordinate: here, heading: 90, speed: 3).course == 90)
        #expect(TraceFix(coordinate: here, heading: 370, speed: 12).course == 10)
        #expect(TraceFix(coordinate: here, heading: 90, speed: 2.9).course == nil)
        #expect(TraceFix(coordinate: here, heading: -1, speed: 12).course == nil)
        #expect(TraceFix(coordinate: here, heading: 90, speed: -1).course == nil)
        #expect(TraceFix(coordinate: here, heading: nil, speed: 12).course == nil)
        #expect(TraceFix(coordinate: here, heading: 90, speed: nil).course == nil)
    }

    @Test("the tips of turns round are the fixes whose course the next course reverses; bends are not")
    func turnsRoundAreCourseReversals() {
        let here = Coordinate(lat: 43.74, lng: 7.42)
        let courses: [Double?] = [nil, 90, 95, 280, 270, nil, 100, 190, 300]
        let fixes = courses.map { TraceFix(coordinate: here, course: $0) }
        // 95 to 280 and 270 to 100 (past a fix with no course) turn round; 100 to 190 and 190 to 300 are bends.
        #expect(MapMatcher.turnsRound(fixes) == [2, 4])
        #expect(MapMatcher.turnsRound(courses.map { _ in TraceFix(coordinate: here) }).isEmpty)
    }

    @Test("fixes off the map are left unmatched; an empty trace matches nothing")
    func offMap() {
        let city = GeneratedCity(seed: 3)
        let matcher = MapMatcher(router: RoadRouter(graph: city.graph))
        #expect(matcher.match([Coordinate]()).distance == 0)
        let a = city.graph.coordinates[Int(city.node(column: 1, row: 1))]
        let b = city.graph.coordinates[Int(city.node(column: 1, row: 2))]
        let match = matcher.match([a, Coordinate(lat: 0, lng: 0), b])
        #expect(match.points[1] == nil)
        #expect(match.points[0] != nil && match.points[2] != nil)
        #expect(match.breaks == 0)
        #expect(Int(match.distance.rounded()) == Int(a.distance(to: b).rounded()))
    }
}
