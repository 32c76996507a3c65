import HailCore
import HailRoads
import HailTesting
import Testing

@Suite("Road graph")
struct RoadGraphTests {
    @Test(
        "Monaco: drivable roads, one-ways, roundabouts, tunnels, nodes, edges and length",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func monacoSummary() throws {
        let extract = try #require(MonacoFixture.extract)
        let graph = try #require(MonacoFixture.graph)
        // 1,763 ways carry a drivable highway class; 3 of them have no segment of two distinct nodes.
        #expect(extract.ways.filter { RoadTags.attributes(for: $0.tags) != nil }.count == 1_763)
        let summary = graph.summary
        #expect(summary.roadCount == 1_760)
        #expect(summary.oneWayRoadCount == 686)
        #expect(summary.roundaboutRoadCount == 48)
        #expect(summary.tunnelRoadCount == 101)
        #expect(summary.tunnelLength.rounded() == 16_606)
        #expect(summary.totalLength.rounded() == 356_034)
        #expect(summary.nodeCount == 16_366)
        #expect(summary.edgeCount == 28_815)
        #expect(summary.skippedSegments == 0)
        #expect(graph.maxSpeedMetersPerSecond == 110 / 3.6)
    }

    @Test(
        "Monaco: CSR adjacency is consistent",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func monacoAdjacency() throws {
        let graph = try #require(MonacoFixture.graph)
        #expect(graph.edgeStart.count == graph.nodeCount + 1)
        #expect(graph.edgeStart.last == Int32(graph.edgeCount))
        for node in 0..<Int32(graph.nodeCount) {
            #expect(graph.outgoingEdges(of: node).allSatisfy { graph.edges[$0].source == node })
        }
    }

    @Test("oneway values, implied one-ways and their overrides")
    func oneway() {
        #expect(RoadTags.direction(oneway: "yes", roadClass: .residential, isRoundabout: false) == .forward)
        #expect(RoadTags.direction(oneway: "1", roadClass: .residential, isRoundabout: false) == .forward)
        #expect(RoadTags.direction(oneway: "true", roadClass: .residential, isRoundabout: false) == .forward)
        #expect(RoadTags.direction(oneway: "-1", roadClass: .residential, isRoundabout: false) == .backward)
        #expect(RoadTags.direction(oneway: nil, roadClass: .residential, isRoundabout: false) == .both)
        #expect(RoadTags.direction(oneway: nil, roadClass: .motorway, isRoundabout: false) == .forward)
        #expect(RoadTags.direction(oneway: nil, roadClass: .primary, isRoundabout: true) == .forward)
        #expect(RoadTags.direction(oneway: "no", roadClass: .motorway, isRoundabout: false) == .both)
        #expect(RoadTags.attributes(for: ["highway": "primary", "junction": "roundabout"])?.direction == .forward)
    }

    @Test("maxspeed: numbers, units, zones, lists and fallbacks")
    func maxspeed() {
        #expect(RoadTags.speedKmh(maxspeed: "50") == 50)
        #expect(RoadTags.speedKmh(maxspeed: "30 mph") == 30 * 1.609344)
        #expect(RoadTags.speedKmh(maxspeed: "20mph") == 20 * 1.609344)
        #expect(RoadTags.speedKmh(maxspeed: "70 km/h") == 70)
        #expect(RoadTags.speedKmh(maxspeed: "FR:urban") == 50)
        #expect(RoadTags.speedKmh(maxspeed: "DE:zone30") == 30)
        #expect(RoadTags.speedKmh(maxspeed: "50;30") == 30)
        #expect(RoadTags.speedKmh(maxspeed: "none") == nil)
        #expect(RoadTags.speedKmh(maxspeed: "0") == nil)
        #expect(RoadTags.speedKmh(maxspeed: "fast") == nil)
        #expect(RoadTags.attributes(for: ["highway": "residential", "maxspeed": "fast"])?.speedKmh == 30)
        #expect(RoadTags.attributes(for: ["highway": "service"])?.speedKmh == 15)
        #expect(RoadTags.attributes(for: ["highway": "footway"]) == nil)
        #expect(RoadTags.attributes(for: ["highway": "primary", "tunnel": "building_passage"])?.isTunnel == true)
        #expect(RoadTags.attributes(for: ["highway": "primary", "bridge": "no"])?.isBridge == false)
    }

    @Test("the builder lays out edges by direction and skips missing nodes")
    func builder() {
        var builder = RoadGraphBuilder()
        let a = builder.addNode(Coordinate(lat: 0, lng: 0))
        let b = builder.addNode(Coordinate(lat: 0, lng: 0.001))
        let c = builder.addNode(Coordinate(lat: 0.001, lng: 0.001))
        builder.addRoad(nodes: [a, b], attributes: RoadAttributes(roadClass: .residential, speedKmh: 36), id: 1)
        builder.addRoad(
            nodes: [b, c, -1, a],
            attributes: RoadAttributes(roadClass: .primary, speedKmh: 72, direction: .backward), id: 2)
        #expect(
            builder.addRoad(nodes: [a, a], attributes: RoadAttributes(roadClass: .service, speedKmh: 10), id: 3) == nil)
        let graph = builder.build()
        #expect(graph.edgeCount == 3)
        #expect(graph.outgoingEdges(of: a).map { graph.edges[$0].target } == [b])
        #expect(graph.outgoingEdges(of: b).map { graph.edges[$0].target } == [a])
        #expect(graph.outgoingEdges(of: c).map { graph.edges[$0].target } == [b])
        #expect(graph.summary.skippedSegments == 2)
        #expect(graph.summary.roadCount == 2)
        #expect((graph.edges[0].duration * 1000).rounded() == 11_120)
    }

    @Test("nodes with impossible coordinates count as missing; the snapper survives non-finite ones")
    func hostileCoordinates() {
        var extract = OSMExtract()
        extract.nodeIDs = [1, 2, 3]
        extract.nodeLatitudes = [43.7, 500, 43.701]
        extract.nodeLongitudes = [7.4, 7.4, 7.4]
        extract.ways = [OSMWay(id: 9, nodeRefs: [1, 2, 3, 1], tags: ["highway": "residential"])]
        let graph = RoadGraph(extract: extract)
        #expect(graph.nodeCount == 2)
        #expect(graph.summary.skippedSegments == 2)
        #expect(graph.edgeCount == 2)
        var builder = RoadGraphBuilder()
        let a = builder.addNode(Coordinate(lat: .nan, lng: 0))
        let b = builder.addNode(Coordinate(lat: 0, lng: 0))
        let c = builder.addNode(Coordinate(lat: 0, lng: 0.001))
        builder.addRoad(nodes: [a, b, c], attributes: RoadAttributes(roadClass: .service, speedKmh: 15), id: 1)
        let snapper = RoadSnapper(graph: builder.build())
        #expect(snapper.snap(Coordinate(lat: 0, lng: 0.0005))?.fraction == 0.5)
        #expect(snapper.snap(Coordinate(lat: .nan, lng: 0)) == nil)
    }
}
