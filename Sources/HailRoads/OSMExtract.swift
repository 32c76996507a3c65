import HailCore

/// The content of an OSM PBF file that road building needs: every node's position and every way.
///
/// Node tags and relations are counted but not kept: no road attribute lives on them
/// (turn restrictions are relations, and this reader does not apply them yet).
public struct OSMExtract: Sendable {
    /// Node ids in file order, parallel to `nodeLatitudes` and `nodeLongitudes`.
    public var nodeIDs: [Int64] = []
    /// Node latitudes in degrees.
    public var nodeLatitudes: [Double] = []
    /// Node longitudes in degrees.
    public var nodeLongitudes: [Double] = []
    /// Every way with its refs and tags, in file order.
    public var ways: [OSMWay] = []
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
