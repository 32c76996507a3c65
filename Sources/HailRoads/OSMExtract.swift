import HailCore

/// The content of an OSM PBF file that road building needs: every node's position and every way.
///
/// Node tags are not kept (no road attribute lives on a node); of the relations, only turn restrictions
/// through a single node are kept, the rest are counted.
public struct OSMExtract: Sendable {
    /// Node ids in file order, parallel to `nodeLatitudes` and `nodeLongitudes`.
    public var nodeIDs: [Int64] = []
    /// Node latitudes in degrees.
    public var nodeLatitudes: [Double] = []
    /// Node longitudes in degrees.
    public var nodeLongitudes: [Double] = []
    /// Every way with its refs and tags, in file order.
    public var ways: [OSMWay] = []
    /// The turn restrictions with one from way, one via node and one to way.
    public var turnRestrictions: [OSMTurnRestriction] = []
    /// Restriction relations left out: a via way, several members of a role, or a missing restriction value.
    public var skippedTurnRestrictions = 0
    /// How many relations the file holds.
    public var relationCount = 0
    /// How many data blocks (`OSMData` blobs) the file holds.
    public var blockCount = 0

    /// Creates an empty extract.
    public init() {}

    /// How many nodes the file holds.
    public var nodeCount: Int { nodeIDs.count }

    /// The coordinate of the node at `index` in file order.
    public func coordinate(atIndex index: Int) -> Coordinate {
        Coordinate(lat: nodeLatitudes[index], lng: nodeLongitudes[index])
    }
}
