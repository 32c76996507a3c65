import Foundation
import HailCore
import HailRoads
import HailServer
import HailTesting
import Testing

/// Issue 14, sixth pass: a phone standing at a Monaco pickup (node 9550, where edges 16605-16608 of one street meet)
/// took a fix 12 m off; snapped afresh it went onto the road beside the street (edges 27525/27526, 8 m from the fix,
/// 20 m from the car), which the car had driven 18 s before, and the rider's pin called that live.
@Suite(
    "A car at rest keeps to its road",
    .enabled(if: SharedData.file("osm/monaco.osm.pbf") != nil, "needs ../shared/data/osm/monaco.osm.pbf"))
struct RoadNetworkAtRestTests {
    static let pickup = Coordinate(lat: 43.7471861, lng: 7.40125)
    static let fix = Coordinate(lat: 43.7470986, lng: 7.4013419)

    @Test func aStandingCarsFixBesideItsStreetStaysOnTheStreet() throws {
        let file = try #require(SharedData.file("osm/monaco.osm.pbf"))
        let network = RoadNetwork(graph: RoadGraph(extract: try OSMPBFReader.read(contentsOf: file)))
        // Where the car stood, facing north on the street.
        let stood = try #require(network.snap(Self.pickup, heading: 4, radius: 25))
        #expect(stood.edge == 16606)
        let afresh = try #require(network.snap(Self.fix, heading: 4, radius: 25))
        #expect(afresh.edge == 27526)
        #expect(Int(afresh.coordinate.distance(to: Self.pickup).rounded()) == 20)
        #expect(!network.isOnRoad(of: stood, afresh))
        // On its road: the street south of the node (16607/16608), 9 m from the fix, under 12 m from where it stood.
        let onItsRoad = try #require(network.snap(Self.fix, onRoadOf: stood, radius: 20))
        #expect([16607, 16608].contains(onItsRoad.edge))
        #expect(Int(onItsRoad.distance.rounded()) == 9)
        #expect(network.isOnRoad(of: stood, onItsRoad))
        #expect(onItsRoad.coordinate.distance(to: Self.pickup) < 12)
        // Nothing of its road within 5 m: no snap.
        #expect(network.snap(Self.fix, onRoadOf: stood, radius: 5) == nil)
    }
}
