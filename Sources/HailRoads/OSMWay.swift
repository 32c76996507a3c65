/// One OpenStreetMap way as the PBF reader found it: its node references and its tags.
public struct OSMWay: Sendable, Hashable {
    /// The OSM way id.
    public var id: Int64
    /// The OSM node ids along the way, in order.
    public var nodeRefs: [Int64]
    /// Every tag of the way.
    public var tags: [String: String]

    /// Creates a way.
    public init(id: Int64, nodeRefs: [Int64], tags: [String: String]) {
        self.id = id
        self.nodeRefs = nodeRefs
        self.tags = tags
    }
}
