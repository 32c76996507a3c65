import Foundation
import HailCore
import HailRoads

/// The way a fleet car drives from where it is to a stop: along the roads when the fleet has a road network (the
/// router's fastest route, from the nearest road to the stop), else straight, as `hail drive` does.
public struct FleetRoutes: Sendable {
    private let router: RoadRouter?

    /// Straight lines.
    public static let straight = FleetRoutes(router: nil)

    /// Routes on the network of an OpenStreetMap `.osm.pbf` file.
    public static func roads(pbfPath path: String) throws(FleetError) -> FleetRoutes {
        do {
            let extract = try OSMPBFReader.read(contentsOf: URL(fileURLWithPath: path))
            return FleetRoutes(router: RoadRouter(graph: RoadGraph(extract: extract)))
        } catch {
            throw FleetError("cannot read the road network \(path): \(error)")
        }
    }

    /// True when cars follow roads.
    public var followsRoads: Bool { router != nil }

    /// The waypoints from `start` to `stop`, ending at `stop` (the car leaves the road for the kerb); straight
    /// when no road leads there.
    public func waypoints(from start: Coordinate, to stop: Coordinate) -> [Coordinate] {
        guard let route = router?.route(from: start, to: stop) else { return [stop] }
        var points = route.coordinates
        if points.last.map({ $0.distance(to: stop) > 1 }) ?? true { points.append(stop) }
        return points
    }
}
