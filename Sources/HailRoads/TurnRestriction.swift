/// A turn rule at one graph node between two roads, in graph indices.
public struct TurnRestriction: Sendable, Hashable {
    /// Whether the rule forbids one turn or allows only one.
    public enum Kind: Sendable, Hashable {
        /// `no_*`: coming from `fromRoad`, a car may not continue onto `toRoad`.
        case prohibitive
        /// `only_*`: coming from `fromRoad`, a car must continue onto `toRoad`.
        case mandatory
    }

    /// The rule's kind.
    public var kind: Kind
    /// The road (index into `RoadGraph.roads`) the car arrives on.
    public var fromRoad: Int32
    /// The node where it turns.
    public var via: Int32
    /// The road the rule is about.
    public var toRoad: Int32

    /// Creates a rule.
    public init(kind: Kind, fromRoad: Int32, via: Int32, toRoad: Int32) {
        self.kind = kind
        self.fromRoad = fromRoad
        self.via = via
        self.toRoad = toRoad
    }

    /// The kind an OSM `restriction` value names (`no_left_turn`, `only_straight_on`...), or nil.
    public static func kind(osmValue value: String) -> Kind? {
        if value.hasPrefix("no_") { return .prohibitive }
        if value.hasPrefix("only_") { return .mandatory }
        return nil
    }
}
