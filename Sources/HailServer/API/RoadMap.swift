import Foundation
import HailRoads

/// The body of `GET /v1/fleet/roads`: the server's road network as straight segments for the fleet map
/// to draw, each street once however many directions it is driven in.
public struct RoadMap: Codable, Sendable, Hashable {
    /// Flat `[lat1, lng1, lat2, lng2, ...]`, four numbers a segment, to five decimals (about a metre):
    /// a tenth the size of one object per segment.
    public var segments: [Double]

    /// Creates a map from flat segments.
    public init(segments: [Double]) { self.segments = segments }

    /// The drawable roads of `graph` (nil: none loaded, no segments).
    public init(graph: RoadGraph?) {
        guard let graph else {
            segments = []
            return
        }
        var seen = Set<Int64>()
        var flat: [Double] = []
        flat.reserveCapacity(graph.edgeCount * 2)
        for edge in graph.edges {
            let low = Int64(min(edge.source, edge.target))
            let high = Int64(max(edge.source, edge.target))
            guard seen.insert(low << 32 | high).inserted else { continue }
            for node in [edge.source, edge.target] {
                let coordinate = graph.coordinates[Int(node)]
                flat.append((coordinate.lat * 100_000).rounded() / 100_000)
                flat.append((coordinate.lng * 100_000).rounded() / 100_000)
            }
        }
        segments = flat
    }
}
