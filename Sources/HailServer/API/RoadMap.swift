import Foundation
import HailCore
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

    /// The drawable roads of `graph` with an end inside the box around `points` widened by `margin` metres:
    /// the neighbourhood a share page draws, a small part of a city's map.
    public init(graph: RoadGraph?, around points: [Coordinate], margin: Double) {
        guard let first = points.first else {
            segments = []
            return
        }
        let metresPerDegree = 111_320.0
        let latMargin = margin / metresPerDegree
        let lngMargin = margin / (metresPerDegree * max(0.01, cos(first.lat * .pi / 180)))
        let minLat = points.map(\.lat).min()! - latMargin
        let maxLat = points.map(\.lat).max()! + latMargin
        let minLng = points.map(\.lng).min()! - lngMargin
        let maxLng = points.map(\.lng).max()! + lngMargin
        func inside(_ lat: Double, _ lng: Double) -> Bool {
            lat >= minLat && lat <= maxLat && lng >= minLng && lng <= maxLng
        }
        let all = RoadMap(graph: graph).segments
        var kept: [Double] = []
        for start in stride(from: 0, to: all.count - 3, by: 4)
        where inside(all[start], all[start + 1]) || inside(all[start + 2], all[start + 3]) {
            kept += all[start..<start + 4]
        }
        segments = kept
    }
}
