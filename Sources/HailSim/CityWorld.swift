import Foundation
import HailClient
import HailCore
import HailDriver
import HailRoads
import HailServer
import HailTime

/// What every simulated client of one city shares: the server, tokens, roads, time and settings.
struct CityWorld: Sendable {
    let server: URL
    let mint: @Sendable (Role, String) -> String
    let router: RoadRouter
    /// Street corners in the city's core (see `spots(of:coreShare:)`), every one reachable from every other:
    /// where riders ask for rides and where drivers wait and cruise.
    let spots: [Coordinate]
    /// The road segments in tunnels, where a car's phone has no fix.
    let tunnels: Set<SimulatedCar.Segment>
    let clock: any Clock<Duration>
    let timeline: Timeline
    let connector: SocketConnector
    let configuration: CityConfiguration

    /// A random intersection of the main component.
    func randomSpot(using random: inout SplitMix64) -> Coordinate {
        spots[Int(random.next() % UInt64(spots.count))]
    }

    /// The street corners riders stand at and idle drivers cruise between: nodes of the main component on a
    /// street (not a service road, ramp, motorway or tunnel), the `coreShare` of them nearest the city's
    /// middle (the median latitude and longitude). An OSM extract reaches well past the town: on Monaco's,
    /// riders anywhere in it asked for rides from parking aisles and hillside hamlets in France, and drivers
    /// roamed there too, so pickups were far and trips long detours. Every main-component node stands in
    /// when the graph has no such streets.
    static func spots(of graph: RoadGraph, coreShare: Double = 1) -> [Coordinate] {
        var all = Set<Int32>()
        var streets = Set<Int32>()
        for edge in graph.edges.indices where graph.isInMainComponent(edge: edge) {
            let node = graph.edges[edge].source
            all.insert(node)
            let road = graph.road(ofEdge: edge)
            if Self.streetClasses.contains(road.roadClass), !road.isTunnel { streets.insert(node) }
        }
        let corners = (streets.isEmpty ? all : streets).sorted().map { graph.coordinates[Int($0)] }
        guard coreShare < 1, corners.count > 1 else { return corners }
        let middle = Coordinate(
            lat: corners.map(\.lat).sorted()[corners.count / 2], lng: corners.map(\.lng).sorted()[corners.count / 2])
        let keep = max(1, Int((Double(corners.count) * max(0, coreShare)).rounded()))
        let radius = corners.map { $0.distance(to: middle) }.sorted()[keep - 1]
        return corners.filter { $0.distance(to: middle) <= radius }
    }

    /// Road classes a rider may stand by.
    static let streetClasses: Set<RoadClass> = [
        .trunk, .primary, .secondary, .tertiary, .unclassified, .residential, .livingStreet,
    ]
}
