/// Counts and lengths that describe a road graph, for tests and the operator's page.
public struct RoadGraphSummary: Sendable, Hashable {
    /// Roads (ways) with at least one segment in the graph.
    public var roadCount: Int
    /// Roads a car may drive one way only.
    public var oneWayRoadCount: Int
    /// Roads that are part of a roundabout.
    public var roundaboutRoadCount: Int
    /// Roads through a tunnel.
    public var tunnelRoadCount: Int
    /// Graph nodes.
    public var nodeCount: Int
    /// Directed edges (a two-way segment counts twice).
    public var edgeCount: Int
    /// The length of all roads in metres, each segment counted once whatever its directions.
    public var totalLength: Double
    /// The length of the tunnel roads in metres.
    public var tunnelLength: Double
    /// Segments left out because a node they reference is not in the file (extracts are clipped).
    public var skippedSegments: Int
}
