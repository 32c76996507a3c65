import HailCore
import HailRoads
import HailTesting
import Testing

@Suite("Routing")
struct RoadRouterTests {
    static let casino = Coordinate(lat: 43.7396, lng: 7.4276)
    static let palace = Coordinate(lat: 43.7314, lng: 7.4197)

    /// Rounds to the decimetre (or tenth of a second) so exact pins survive last-bit differences.
    static func tenths(_ value: Double) -> Int { Int((value * 10).rounded()) }

    @Test(
        "Monaco: Casino to the Palace and back, each way forced by one-way streets",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func casinoPalace() throws {
        let graph = try #require(MonacoFixture.graph)
        let router = RoadRouter(graph: graph)
        let there = try #require(router.route(from: Self.casino, to: Self.palace))
        let back = try #require(router.route(from: Self.palace, to: Self.casino))
        #expect(Self.tenths(there.distance) == 28_441)
        #expect(Self.tenths(there.duration) == 2_442)
        #expect(Self.tenths(back.distance) == 14_464)
        #expect(Self.tenths(back.duration) == 1_301)
        #expect(Self.tenths(Self.casino.distance(to: Self.palace)) == 11_110)
        // The way there passes through the Aureglia and Dorsale tunnels.
        let names = Set(there.edges.map { graph.road(ofEdge: $0).name })
        #expect(names.isSuperset(of: ["Tunnel Aureglia", "Tunnel Dorsale", "Boulevard des Moulins"]))
        let tunnelMeters = there.edges.filter { graph.road(ofEdge: $0).isTunnel }.map { graph.edges[$0].length }
        #expect(tunnelMeters.reduce(0, +).rounded() == 707)
        // The polyline's length is the route's distance; it starts and ends near the places asked for.
        #expect(Self.tenths(there.coordinates.pathLength) == 28_441)
        #expect(there.coordinates.first!.distance(to: Self.casino) < 5)
        #expect(there.coordinates.last!.distance(to: Self.palace) < 5)
    }

    @Test(
        "Monaco: every edge of a route follows its way's node order where the way is one-way",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func respectsOneWay() throws {
        let extract = try #require(MonacoFixture.extract)
        let graph = try #require(MonacoFixture.graph)
        let router = RoadRouter(graph: graph)
        let ways = Dictionary(uniqueKeysWithValues: extract.ways.map { ($0.id, $0) })
        var oneWayEdges = 0
        for route in [
            router.route(from: Self.casino, to: Self.palace), router.route(from: Self.palace, to: Self.casino),
        ] {
            let route = try #require(route)
            for (previous, next) in zip(route.edges, route.edges.dropFirst()) {
                #expect(graph.edges[previous].target == graph.edges[next].source)
            }
            for edgeID in route.edges {
                let edge = graph.edges[edgeID]
                let road = graph.roads[Int(edge.road)]
                guard road.direction.isOneWay else { continue }
                oneWayEdges += 1
                let refs = try #require(ways[graph.roadIDs[Int(edge.road)]]).nodeRefs
                let pair = (graph.nodeIDs[Int(edge.source)], graph.nodeIDs[Int(edge.target)])
                let forward = zip(refs, refs.dropFirst()).contains { $0 == pair.0 && $1 == pair.1 }
                let backward = zip(refs, refs.dropFirst()).contains { $0 == pair.1 && $1 == pair.0 }
                #expect(road.direction == .forward ? forward : backward)
            }
        }
        #expect(oneWayEdges == 215)
    }

    @Test("generated city: a one-way street is driven directly one way and detoured the other")
    func cityOneWay() throws {
        let city = GeneratedCity(seed: 42)
        let router = RoadRouter(graph: city.graph)
        let west = city.node(column: 0, row: 1)
        let east = city.node(column: 7, row: 1)
        let eastbound = try #require(router.route(fromNode: west, toNode: east))
        let westbound = try #require(router.route(fromNode: east, toNode: west))
        #expect(Self.tenths(eastbound.distance) == 10_739)
        #expect(Self.tenths(eastbound.duration) == 966)
        #expect(Set(eastbound.edges.map { city.graph.road(ofEdge: $0).name }) == ["Street 2"])
        #expect(Self.tenths(westbound.distance) == 16_616)
        #expect(Self.tenths(westbound.duration) == 980)
        #expect(!westbound.edges.contains { city.graph.road(ofEdge: $0).name == "Street 2" })
    }

    @Test("generated city: the middle avenue's tunnel skips the streets above it")
    func cityTunnel() throws {
        let city = GeneratedCity(seed: 42)
        let router = RoadRouter(graph: city.graph)
        let route = try #require(
            router.route(fromNode: city.node(column: 4, row: 0), toNode: city.node(column: 4, row: 7)))
        #expect(Self.tenths(route.distance) == 10_578)
        #expect(Self.tenths(route.duration) == 762)
        #expect(route.edges.contains { city.graph.road(ofEdge: $0).isTunnel })
        #expect(!route.coordinates.contains(city.graph.coordinates[Int(city.node(column: 4, row: 3))]))
    }

    @Test("generated city: the same seed gives the same city, another seed another")
    func citySeed() {
        let a = GeneratedCity(seed: 7).graph.summary
        #expect(a == GeneratedCity(seed: 7).graph.summary)
        #expect(a.totalLength != GeneratedCity(seed: 8).graph.summary.totalLength)
        #expect(a.nodeCount == 102)
        #expect(a.edgeCount == 324)
        #expect(a.oneWayRoadCount == 4)
        #expect(a.tunnelRoadCount == 1)
        #expect(a.totalLength.rounded() == 27_579)
    }

    @Test("routes from a node to itself, to an unreachable node, and off the map")
    func edgeCases() {
        var builder = RoadGraphBuilder()
        let a = builder.addNode(Coordinate(lat: 0, lng: 0))
        let b = builder.addNode(Coordinate(lat: 0, lng: 0.001))
        builder.addRoad(
            nodes: [a, b], attributes: RoadAttributes(roadClass: .residential, speedKmh: 36, direction: .forward), id: 1
        )
        let router = RoadRouter(graph: builder.build())
        #expect(router.route(fromNode: a, toNode: a)?.distance == 0)
        #expect(router.route(fromNode: b, toNode: a) == nil)
        #expect(router.route(fromNode: a, toNode: 9) == nil)
        #expect(router.route(from: Coordinate(lat: 10, lng: 10), to: Coordinate(lat: 0, lng: 0)) == nil)
        // Along one edge, forwards: the part between the two snapped points. A lone one-way edge joins two
        // one-node components, so it is outside the main component and must be allowed explicitly.
        let a2 = Coordinate(lat: 0, lng: 0.0002)
        let a7 = Coordinate(lat: 0, lng: 0.0007)
        #expect(router.route(from: a2, to: a7) == nil)
        let along = router.route(from: a2, to: a7, anyComponent: true)
        #expect(along.map { Self.tenths($0.distance) } == 556)
        #expect(along?.edges == [0])
        // Backwards on the one-way edge there is no route.
        #expect(router.route(from: a7, to: a2, anyComponent: true) == nil)
    }

    @Test(
        "Monaco: 635 strongly connected parts; positions are routed from the main one",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func components() throws {
        let graph = try #require(MonacoFixture.graph)
        #expect(Set(graph.componentIDs).count == 635)
        #expect(graph.componentIDs.filter { $0 == 0 }.count == 15_064)
        #expect(graph.componentIDs.filter { $0 == 1 }.count == 292)
        // Island nodes within 200 m of a main road (the default snap radius) are routed from that road.
        // The rest are farther out; those looked at lie on the clipped western edge near La Turbie.
        let router = RoadRouter(graph: graph)
        let islands = graph.coordinates.indices.filter { graph.componentIDs[$0] != 0 }
        let nearMain = islands.filter { index in
            router.snapper.candidates(near: graph.coordinates[index], radius: 200).contains {
                graph.isInMainComponent(edge: $0.edge)
            }
        }
        #expect(islands.count == 1_302)
        #expect(nearMain.count == 642)
        var routed = 0
        for index in nearMain.prefix(40) where router.route(from: graph.coordinates[index], to: Self.casino) != nil {
            routed += 1
        }
        #expect(routed == 40)
    }

    @Test(
        "Monaco: a route carries the time the car passes each point, and where it is at any second",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func timedPositions() throws {
        let graph = try #require(MonacoFixture.graph)
        let route = try #require(RoadRouter(graph: graph).route(from: Self.casino, to: Self.palace))
        #expect(route.times.count == route.coordinates.count)
        #expect(route.times.first == 0)
        #expect(route.times.last == route.duration)
        #expect(zip(route.times, route.times.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(route.position(atSeconds: -5)?.coordinate == route.coordinates.first)
        #expect(route.position(atSeconds: route.duration + 5)?.coordinate == route.coordinates.last)
        // Two minutes into the 244 s drive the car is at 43.73403, 7.41794.
        let twoMinutes = try #require(route.position(atSeconds: 120))
        #expect(Self.tenths(twoMinutes.coordinate.lat * 10_000) == 4_373_403)
        #expect(Self.tenths(twoMinutes.coordinate.lng * 10_000) == 741_794)
    }

    @Test("generated city: along one street at one speed, half the time is half the way")
    func timedCity() throws {
        let city = GeneratedCity(seed: 42)
        let route = try #require(
            RoadRouter(graph: city.graph).route(
                fromNode: city.node(column: 0, row: 1), toNode: city.node(column: 7, row: 1)))
        let half = try #require(route.position(atSeconds: route.duration / 2))
        let byDistance = try #require(route.coordinates.point(atFraction: 0.5))
        #expect(half.coordinate.distance(to: byDistance.coordinate) < 0.01)
        #expect(Route(distance: 1, duration: 1, coordinates: [], edges: []).position(atSeconds: 0) == nil)
    }
}
