/// What `RoadBenchmark.run` measured.
public struct RoadBenchmarkResult: Sendable, Hashable {
    /// Seconds to parse the PBF bytes (inflate and decode every block).
    public var readSeconds: Double
    /// Seconds to build the road graph from the extract.
    public var graphSeconds: Double
    /// Seconds to build the snapping grid.
    public var indexSeconds: Double
    /// Graph nodes and directed edges.
    public var nodeCount: Int
    /// Directed edges.
    public var edgeCount: Int
    /// Node-to-node routes asked for.
    public var routes: Int
    /// How many of them found a route (the rest were unreachable, e.g. into a dead-end private road).
    public var routesFound: Int
    /// Mean length in metres of the routes found.
    public var meanRouteMeters: Double
    /// Routes computed per second, one thread.
    public var routesPerSecond: Double
    /// Heading-free snaps (50 m radius) per second, one thread.
    public var snapsPerSecond: Double
}
