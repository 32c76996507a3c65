import Foundation
import HailCore
import HailRoads
import HailServer
import Testing

/// The road path the rider's car glides along between two consecutive published positions, and when the
/// server holds the car instead: the car never moves backwards and never goes round a block it did not drive.
@Suite("Road paths between consecutive positions")
struct RoadNetworkPathTests {
    static let origin = Coordinate(lat: 43.73, lng: 7.42)
    static let street = RoadAttributes(roadClass: .residential, speedKmh: 36)

    /// The point `east` and `north` metres from `origin`.
    static func at(_ east: Double, _ north: Double) -> Coordinate {
        let metresPerDegree = Coordinate.earthRadiusMeters * .pi / 180
        return Coordinate(
            lat: origin.lat + north / metresPerDegree,
            lng: origin.lng + east / (metresPerDegree * cos(origin.lat * .pi / 180)))
    }

    /// A network of roads, each a polyline of (east, north) points in metres.
    static func network(_ roads: [(points: [(Double, Double)], direction: RoadDirection)]) -> RoadNetwork {
        var builder = RoadGraphBuilder()
        var nodes: [String: Int32] = [:]
        for (index, road) in roads.enumerated() {
            let ids = road.points.map { point in
                let key = "\(point.0),\(point.1)"
                if let node = nodes[key] { return node }
                let node = builder.addNode(at(point.0, point.1))
                nodes[key] = node
                return node
            }
            var attributes = street
            attributes.direction = road.direction
            builder.addRoad(nodes: ids, attributes: attributes, id: Int64(index + 1))
        }
        return RoadNetwork(graph: builder.build())
    }

    /// A two-way street running east with a node every 10 m, as OSM ways have a node every few metres.
    static let eastStreet = network([(points: (0...6).map { (Double($0) * 10, 0) }, direction: .both)])

    static func snap(_ network: RoadNetwork, _ east: Double, _ north: Double, heading: Double) throws -> RoadSnap {
        try #require(network.snap(at(east, north), heading: heading, radius: 25))
    }

    @Test func aFixJustBehindOneThatCrossedANodeHoldsTheCar() throws {
        let network = Self.eastStreet
        let ahead = try Self.snap(network, 21, 2, heading: 90)
        let behind = try Self.snap(network, 18, -2, heading: 90)
        // Two edges: 10-20 m and 20-30 m.
        #expect(ahead.edge != behind.edge)
        #expect(network.isJitterBack(from: ahead, to: behind))
        // The only road from the first to the second goes on and comes back: refused.
        #expect(network.path(from: ahead, to: behind) == nil)
        // Forward, the same two are 3 m of street through the node.
        let path = try #require(network.path(from: behind, to: ahead))
        #expect(path.count == 3)
        #expect((path.pathLength * 10).rounded() == 30)
        #expect(!network.isJitterBack(from: behind, to: ahead))
    }

    @Test func aFixFarBehindIsNotTakenForJitter() throws {
        let network = Self.eastStreet
        let ahead = try Self.snap(network, 41, 0, heading: 90)
        let behind = try Self.snap(network, 22, 0, heading: 90)
        #expect(!network.isJitterBack(from: ahead, to: behind))
        #expect(network.path(from: ahead, to: behind) == nil)
    }

    @Test func aPathThatTurnsRoundOnTheOtherCarriagewayIsRefused() throws {
        let network = Self.eastStreet
        let east = try Self.snap(network, 25, 0, heading: 90)
        // The car turned round (or its heading says so): the westbound edge, 3 m back.
        let west = try Self.snap(network, 22, 0, heading: 270)
        #expect(west.edge != east.edge)
        #expect(!network.isJitterBack(from: east, to: west))
        // On to the node at 30 m and back: 13 m for 3 m of straight line, with a U-turn.
        #expect(network.path(from: east, to: west) == nil)
    }

    @Test func aPathRoundTheBlockIsRefused() throws {
        // Southern street two-way, 60 m long; the northern one, 30 m north, one-way westbound.
        let network = Self.network([
            (points: [(0, 0), (30, 0), (60, 0)], direction: .both),
            (points: [(60, 0), (60, 30)], direction: .both),
            (points: [(60, 30), (30, 30), (0, 30)], direction: .forward),
            (points: [(0, 30), (0, 0)], direction: .both),
        ])
        let south = try Self.snap(network, 20, 4, heading: 90)
        // A noisy fix beyond the snapping radius of the southern street: only the northern one, westbound.
        let north = try Self.snap(network, 30, 27, heading: 90)
        #expect((north.coordinate.distance(to: Self.at(30, 30)) * 10).rounded() == 0)
        #expect((north.bearing - 270).magnitude < 1)
        // By road: 40 m east, 30 m north and 30 m west, for 32 m of straight line.
        #expect(network.path(from: south, to: north) == nil)
        #expect(!network.isJitterBack(from: south, to: north))
    }

    @Test func aCornerIsGlidedAlongTheRoads() throws {
        let network = Self.network([(points: [(0, 0), (40, 0), (40, 40)], direction: .both)])
        let before = try Self.snap(network, 20, 0, heading: 90)
        let after = try Self.snap(network, 40, 20, heading: 0)
        let path = try #require(network.path(from: before, to: after))
        #expect(path.count == 3)
        #expect((path[1].distance(to: Self.at(40, 0)) * 10).rounded() == 0)
        #expect(path.pathLength.rounded() == 40)
    }

    @Test func aHairpinIsGlidedAlongTheRoad() throws {
        // A half circle of 15 m radius, a node every 15 degrees, entered heading north and left heading south.
        let bend = (0...12).map { step -> (Double, Double) in
            let angle = Double(step) * 15 * .pi / 180
            return (15 - 15 * cos(angle), 15 * sin(angle))
        }
        let network = Self.network([(points: bend, direction: .both)])
        let start = try Self.snap(network, 0, 0, heading: 0)
        let end = try Self.snap(network, 30, 0, heading: 180)
        let path = try #require(network.path(from: start, to: end))
        #expect(path.count == 13)
        // 47 m of road for 30 m of straight line.
        #expect(path.pathLength.rounded() == 47)
    }
}
