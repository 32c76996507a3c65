import HailCore

/// A driving route: how far, how long, the path to draw and the edges it uses.
public struct Route: Sendable, Hashable {
    /// The length in metres.
    public var distance: Double
    /// The driving time in seconds at the roads' speeds (no traffic, no turn costs).
    public var duration: Double
    /// The path from start to end, including the snapped end points when the route began off a node.
    public var coordinates: [Coordinate]
    /// The edge ids in driving order (a partly driven first or last edge included).
    public var edges: [Int]

    /// Creates a route.
    public init(distance: Double, duration: Double, coordinates: [Coordinate], edges: [Int]) {
        self.distance = distance
        self.duration = duration
        self.coordinates = coordinates
        self.edges = edges
    }
}
