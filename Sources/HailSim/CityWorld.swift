import Foundation
import HailClient
import HailCore
import HailDriver
import HailRoads
import HailServer

/// What every simulated client of one city shares: the server, tokens, roads, time and settings.
struct CityWorld: Sendable {
    let server: URL
    let mint: @Sendable (Role, String) -> String
    let router: RoadRouter
    /// Intersections of the graph's main component: every one reachable from every other.
    let spots: [Coordinate]
    /// The road segments in tunnels, where a car's phone has no fix.
    let tunnels: Set<SimulatedCar.Segment>
    let clock: any Clock<Duration>
    let timeline: DriverTimeline
    let connector: SocketConnector
    let configuration: CityConfiguration

    /// A random intersection of the main component.
    func randomSpot(using random: inout SimRandom) -> Coordinate {
        spots[Int(random.next() % UInt64(spots.count))]
    }

    /// The intersections a car can drive between.
    static func spots(of graph: RoadGraph) -> [Coordinate] {
        var nodes = Set<Int32>()
        for edge in graph.edges.indices where graph.isInMainComponent(edge: edge) {
            nodes.insert(graph.edges[edge].source)
        }
        return nodes.sorted().map { graph.coordinates[Int($0)] }
    }
}
