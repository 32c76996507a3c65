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
        return advice(route)
    }

    /// The fastest route for a car at `start` driving along `heading`: it leaves on the road it is on, the way
    /// it faces (one of the roads within `Self.sameRoadMeters` of the nearest, within 60 degrees of the heading).
    /// Without a heading, or with none of them that way, as `advise(from:to:)`: either way along the nearest.
    public func advise(from start: Coordinate, heading: Double?, to end: Coordinate) -> RouteAdvice? {
        guard let heading, heading.isFinite, heading >= 0 else { return advise(from: start, to: end) }
        let graph = router.graph
        let near = router.snapper.candidates(near: start, radius: snapRadius).filter {
            graph.isInMainComponent(edge: $0.edge)
        }
        guard let nearest = near.first,
            let facing = near.first(where: {
                $0.distance <= nearest.distance + Self.sameRoadMeters
                    && abs(Heading.shortestTurn(from: heading, to: $0.bearing)) <= 60
            })
        else { return advise(from: start, to: end) }
        let ends = router.snapper.candidates(near: end, radius: snapRadius).filter {
            graph.isInMainComponent(edge: $0.edge)
        }
        guard let last = ends.first,
            let route = router.route(from: [facing], to: ends.filter { $0.distance <= last.distance + 0.5 })
        else { return advise(from: start, to: end) }
        return advice(route)
    }

    /// How much further than the nearest road a road may be and still be the one the car is on (GPS noise).
    public static let sameRoadMeters = 5.0

    private func advice(_ route: Route) -> RouteAdvice {
        RouteAdvice(distance: route.distance, duration: route.duration, coordinates: route.coordinates, provider: name)
    }
}
