import HailCore

/// A position placed on a road: the edge, the point on it and how far the original position was.
public struct RoadSnap: Sendable, Hashable {
    /// The edge id in the graph.
    public var edge: Int
    /// The point on the edge nearest to the position.
    public var coordinate: Coordinate
    /// How far along the edge that point lies, 0 at its source and 1 at its target.
    public var fraction: Double
    /// The distance in metres from the position to the point.
    public var distance: Double
    /// The edge's compass bearing, in the direction a car drives it.
    public var bearing: Double

    /// Creates a snap.
    public init(edge: Int, coordinate: Coordinate, fraction: Double, distance: Double, bearing: Double) {
        self.edge = edge
        self.coordinate = coordinate
        self.fraction = fraction
        self.distance = distance
        self.bearing = bearing
    }
}
