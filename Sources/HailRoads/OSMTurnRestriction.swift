/// A turn restriction relation (`type=restriction`) with one `from` way, one `via` node and one `to` way.
public struct OSMTurnRestriction: Sendable, Hashable {
    /// The relation id.
    public var id: Int64
    /// The `restriction` (or `restriction:motorcar`) value, such as `no_left_turn` or `only_straight_on`.
    public var restriction: String
    /// The way the car comes from.
    public var fromWay: Int64
    /// The node where it turns.
    public var viaNode: Int64
    /// The way the restriction is about.
    public var toWay: Int64

    /// Creates a restriction.
    public init(id: Int64, restriction: String, fromWay: Int64, viaNode: Int64, toWay: Int64) {
        self.id = id
        self.restriction = restriction
        self.fromWay = fromWay
        self.viaNode = viaNode
        self.toWay = toWay
    }
}
