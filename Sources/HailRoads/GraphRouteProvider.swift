import HailCore

/// Route advice from A* on a road graph.
public struct GraphRouteProvider: RouteProvider {
    /// `graph`.
    public let name = "graph"
    /// The router used.
    public let router: RoadRouter
    /// How far (metres) a point may be from a road and still be placed on it.
    public let snapRadius: Double

    /// Creates a provider routing with `router`.
    public init(router: RoadRouter, snapRadius: Double = 200) {
        self.router = router
        self.snapRadius = snapRadius
    }

    /// The fastest route's distance, time and path, or nil when either end is off the roads or unreachable.
    public func advise(from start: Coordinate, to end: Coordinate) -> RouteAdvice? {
        guard let route = router.route(from: start, to: end, snapRadius: snapRadius) else { return nil }
        return RouteAdvice(
            distance: route.distance, duration: route.duration, coordinates: route.coordinates, provider: name)
    }
}
