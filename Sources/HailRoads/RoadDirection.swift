/// Which ways a car may travel along a road, relative to the order of its nodes.
public enum RoadDirection: Sendable, Hashable, Codable {
    /// Two-way.
    case both
    /// One-way in node order (`oneway=yes`, implied on motorways and roundabouts).
    case forward
    /// One-way against node order (`oneway=-1`).
    case backward

    /// True when only one direction is allowed.
    public var isOneWay: Bool { self != .both }
}
