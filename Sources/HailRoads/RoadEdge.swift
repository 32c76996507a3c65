/// One directed segment of road between two consecutive graph nodes.
public struct RoadEdge: Sendable, Hashable {
    /// The node the edge leaves.
    public var source: Int32
    /// The node the edge reaches.
    public var target: Int32
    /// The index of the road (way) it belongs to, in `RoadGraph.roads`.
    public var road: Int32
    /// The great-circle length in metres.
    public var length: Double
    /// The time to drive it in seconds, length over the road's speed.
    public var duration: Double

    /// Creates an edge.
    public init(source: Int32, target: Int32, road: Int32, length: Double, duration: Double) {
        self.source = source
        self.target = target
        self.road = road
        self.length = length
        self.duration = duration
    }
}
