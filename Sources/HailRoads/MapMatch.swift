import HailCore

/// The result of matching a trace to the roads.
public struct MapMatch: Sendable, Hashable {
    /// For each trace point, the road position chosen for it, or nil when no road was within range.
    public var points: [RoadSnap?]
    /// The driven distance in metres: the road distance between consecutive matched points.
    public var distance: Double
    /// The driven path along the roads, for drawing and for the glide.
    public var coordinates: [Coordinate]
    /// The edges driven, in order, without immediate repeats.
    public var edges: [Int]
    /// How many times the chain broke (no road path fitted between two points) and restarted.
    public var breaks: Int
}
