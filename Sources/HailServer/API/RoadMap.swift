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
        segments = Self.segments(of: graph) { _, _ in true }
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
        func inside(_ point: Coordinate) -> Bool {
            point.lat >= minLat && point.lat <= maxLat && point.lng >= minLng && point.lng <= maxLng
        }
        segments = Self.segments(of: graph) { start, end in inside(start) || inside(end) }
    }

    /// Each street of `graph` once (however many directions it is driven in) for which `keep` holds, flat
    /// and rounded to five decimals; one pass over the edges, so a share page's few streets cost no more
    /// than walking the graph.
    private static func segments(of graph: RoadGraph?, where keep: (Coordinate, Coordinate) -> Bool) -> [Double] {
        guard let graph else { return [] }
        var seen = Set<Int64>()
        var flat: [Double] = []
        for edge in graph.edges {
            let start = graph.coordinates[Int(edge.source)]
            let end = graph.coordinates[Int(edge.target)]
            guard keep(start, end) else { continue }
            let low = Int64(min(edge.source, edge.target))
            let high = Int64(max(edge.source, edge.target))
            guard seen.insert(low << 32 | high).inserted else { continue }
            for coordinate in [start, end] {
                flat.append((coordinate.lat * 100_000).rounded() / 100_000)
                flat.append((coordinate.lng * 100_000).rounded() / 100_000)
            }
        }
        return flat
    }
}
