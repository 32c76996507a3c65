import Foundation
import HailCore

/// An equirectangular projection to metres around a reference point: exact enough within a city
/// (errors of a few centimetres per kilometre) and far cheaper than spherical trigonometry per segment.
public struct LocalProjection: Sendable {
    /// The point the projection is centred on: (0, 0).
    public let origin: Coordinate
    /// Metres per degree of latitude.
    public let metersPerDegreeLat: Double
    /// Metres per degree of longitude at the origin's latitude.
    public let metersPerDegreeLng: Double

    /// A projection centred on `origin`.
    public init(origin: Coordinate) {
        self.origin = origin
        metersPerDegreeLat = Coordinate.earthRadiusMeters * .pi / 180
        metersPerDegreeLng = metersPerDegreeLat * cos(origin.lat * .pi / 180)
    }

    /// `coordinate` in metres east (x) and north (y) of the origin.
    public func point(_ coordinate: Coordinate) -> (x: Double, y: Double) {
        ((coordinate.lng - origin.lng) * metersPerDegreeLng, (coordinate.lat - origin.lat) * metersPerDegreeLat)
    }

    /// Where `point` falls on segment `start`-`end`: the fraction along it (clamped to [0, 1]) and the
    /// squared distance in square metres.
    public func project(_ point: Coordinate, ontoSegment start: Coordinate, _ end: Coordinate) -> (
        fraction: Double, squaredDistance: Double
    ) {
        let p = self.point(point)
        let a = self.point(start)
        let b = self.point(end)
        let dx = b.x - a.x
        let dy = b.y - a.y
        let lengthSquared = dx * dx + dy * dy
        var t = lengthSquared > 0 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / lengthSquared : 0
        t = min(1, max(0, t))
        let ex = a.x + t * dx - p.x
        let ey = a.y + t * dy - p.y
        return (t, ex * ex + ey * ey)
    }
}
