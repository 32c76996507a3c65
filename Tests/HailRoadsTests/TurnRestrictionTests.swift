import HailCore
import HailRoads
import HailTesting
import Testing

@Suite("Turn restrictions")
struct TurnRestrictionTests {
    /// The position halfway along `edge`.
    static func middle(of edge: Int, in graph: RoadGraph) -> RoadSnap {
        let (start, end) = graph.segment(ofEdge: edge)
        return RoadSnap(
            edge: edge, coordinate: start.interpolated(to: end, fraction: 0.5), fraction: 0.5, distance: 0,
            bearing: start.bearing(to: end))
    }

    @Test(
        "Monaco: the 27 restriction relations are read and all apply to the graph",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func monacoRestrictions() throws {
        let extract = try #require(MonacoFixture.extract)
        let graph = try #require(MonacoFixture.graph)
        #expect(extract.turnRestrictions.count == 27)
        #expect(extract.skippedTurnRestrictions == 0)
        let kinds = Dictionary(grouping: extract.turnRestrictions, by: \.restriction).mapValues(\.count)
        #expect(kinds == ["only_straight_on": 18, "only_right_turn": 5, "no_left_turn": 2, "no_u_turn": 2])
        #expect(graph.turnRestrictions.count == 27)
    }

    @Test(
        "Monaco: a forbidden turn is never taken, the route detours or there is none",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func monacoForbiddenTurns() throws {
        let graph = try #require(MonacoFixture.graph)
        let router = RoadRouter(graph: graph)
        var detours = 0
        var unreachable = 0
        var checked = 0
        for rule in graph.turnRestrictions {
            let arriving = graph.edges.indices.filter {
                graph.edges[$0].road == rule.fromRoad && graph.edges[$0].target == rule.via
            }
            let banned = graph.outgoingEdges(of: rule.via).filter {
                rule.kind == .prohibitive ? graph.edges[$0].road == rule.toRoad : graph.edges[$0].road != rule.toRoad
            }
            for from in arriving {
                for to in banned {
                    #expect(!graph.allowsTurn(from: from, to: to))
                    checked += 1
                    guard
                        let route = router.route(
                            from: [Self.middle(of: from, in: graph)], to: [Self.middle(of: to, in: graph)])
                    else {
                        unreachable += 1
                        continue
                    }
                    #expect(!zip(route.edges, route.edges.dropFirst()).contains { $0 == from && $1 == to })
                    #expect(zip(route.edges, route.edges.dropFirst()).allSatisfy { graph.allowsTurn(from: $0, to: $1) })
                    if route.edges.count > 2 { detours += 1 }
                }
            }
        }
        #expect(checked == 35)
        #expect(detours == 35)
        #expect(unreachable == 0)
    }

    @Test("a no-left-turn at a crossing sends the car round the block; only-straight-on bans both turns")
    func crossing() throws {
        // A plus-shaped crossing X at (0, 0) with arms 100 m long, and a block to go round:
        // south arm S, east arm E, north arm N, west arm W; the loop E - NE - N lets a car reach N another way.
        var builder = RoadGraphBuilder()
        let meters = 1 / 111_195.08
        let x = builder.addNode(Coordinate(lat: 0, lng: 0))
        let s = builder.addNode(Coordinate(lat: -100 * meters, lng: 0))
        let e = builder.addNode(Coordinate(lat: 0, lng: 100 * meters))
        let n = builder.addNode(Coordinate(lat: 100 * meters, lng: 0))
        let w = builder.addNode(Coordinate(lat: 0, lng: -100 * meters))
        let ne = builder.addNode(Coordinate(lat: 100 * meters, lng: 100 * meters))
        let street = RoadAttributes(roadClass: .residential, speedKmh: 36)
        let south = builder.addRoad(nodes: [s, x], attributes: street, id: 1)!
        let east = builder.addRoad(nodes: [x, e], attributes: street, id: 2)!
        builder.addRoad(nodes: [x, n], attributes: street, id: 3)
        let west = builder.addRoad(nodes: [x, w], attributes: street, id: 4)!
        builder.addRoad(nodes: [e, ne, n], attributes: street, id: 5)
        builder.addTurnRestriction(TurnRestriction(kind: .prohibitive, fromRoad: south, via: x, toRoad: west))
        builder.addTurnRestriction(TurnRestriction(kind: .mandatory, fromRoad: east, via: x, toRoad: west))
        let graph = builder.build()
        let router = RoadRouter(graph: graph)
        // South to west: the left turn is banned, so the car goes on to the dead end north, turns and
        // comes back (U-turns are allowed unless a rule bans them).
        let detour = try #require(router.route(fromNode: s, toNode: w))
        #expect(Int(detour.distance.rounded()) == 400)
        #expect(detour.coordinates.contains(graph.coordinates[Int(n)]))
        // South to north: straight on is allowed.
        #expect(try #require(router.route(fromNode: s, toNode: n)).edges.count == 2)
        // East to north: only straight on (west) from the east arm, so round the block instead.
        let round = try #require(router.route(fromNode: e, toNode: n))
        #expect(round.coordinates.contains(graph.coordinates[Int(ne)]))
        #expect(Int(round.distance.rounded()) == 200)
    }
}
