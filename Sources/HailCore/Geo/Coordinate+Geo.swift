import Foundation

/// Geometry on the sphere, accurate to well under a metre at city scale.
extension Coordinate {
    /// The mean Earth radius in metres (IUGG), used by every distance in Hail.
    public static let earthRadiusMeters = 6_371_008.8

    /// The great-circle distance to `other` in metres (haversine formula).
    public func distance(to other: Coordinate) -> Double {
        let phi1 = lat.radians
        let phi2 = other.lat.radians
        let dPhi = (other.lat - lat).radians
        let dLambda = (other.lng - lng).radians
        let a = sin(dPhi / 2) * sin(dPhi / 2) + cos(phi1) * cos(phi2) * sin(dLambda / 2) * sin(dLambda / 2)
        // min() guards asin against a rounding excursion past 1 for antipodal points.
        return 2 * Self.earthRadiusMeters * asin(min(1, a.squareRoot()))
    }

    /// The initial bearing from here towards `other`, in degrees clockwise from north in [0, 360).
    ///
    /// Two equal points have no direction; the answer is then 0.
    public func bearing(to other: Coordinate) -> Double {
        let phi1 = lat.radians
        let phi2 = other.lat.radians
        let dLambda = (other.lng - lng).radians
        let y = sin(dLambda) * cos(phi2)
        let x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dLambda)
        if x == 0 && y == 0 { return 0 }
        return Heading.normalized(atan2(y, x).degrees)
    }

    /// The point at `fraction` (0 is here, 1 is `other`) of the way along the straight segment to `other`.
    ///
    /// The interpolation is linear in latitude and longitude. Between two fixes a few hundred metres
    /// apart this differs from the great circle by millimetres, and it keeps the glide exact and cheap.
    /// The fraction is clamped to [0, 1]: a segment is never extrapolated.
    public func interpolated(to other: Coordinate, fraction: Double) -> Coordinate {
        let t = fraction.clamped(to: 0...1)
        // The ends are returned exactly: a + (b - a) * 1 can miss b in the last bit.
        if t == 0 { return self }
        if t == 1 { return other }
        return Coordinate(lat: lat + (other.lat - lat) * t, lng: lng + (other.lng - lng) * t)
    }
}

/// Lengths and positions along a polyline of coordinates.
extension Array where Element == Coordinate {
    /// The length of the polyline in metres, the sum of its segments' great-circle distances.
    public var pathLength: Double {
        guard count > 1 else { return 0 }
        var total = 0.0
        for index in 1..<count { total += self[index - 1].distance(to: self[index]) }
        return total
    }

    /// The point at `fraction` of the polyline's length, with the bearing of the segment it lies on.
    ///
    /// Returns nil for an empty polyline. A single point, or a polyline of zero length, gives its
    /// first point. The fraction is clamped to [0, 1].
    public func point(atFraction fraction: Double) -> (coordinate: Coordinate, bearing: Double)? {
        guard let first else { return nil }
        guard count > 1 else { return (first, 0) }
        let total = pathLength
        guard total > 0 else { return (first, 0) }
        if fraction >= 1 { return (self[count - 1], self[count - 2].bearing(to: self[count - 1])) }
        var remaining = fraction.clamped(to: 0...1) * total
        for index in 1..<count {
            let start = self[index - 1]
            let end = self[index]
            let length = start.distance(to: end)
            if remaining <= length || index == count - 1 {
                let local = length > 0 ? remaining / length : 0
                return (start.interpolated(to: end, fraction: local), start.bearing(to: end))
            }
            remaining -= length
        }
        return (self[count - 1], self[count - 2].bearing(to: self[count - 1]))
    }
}

extension Double {
    var radians: Double { self * .pi / 180 }
    var degrees: Double { self * 180 / .pi }

    func clamped(to range: ClosedRange<Double>) -> Double {
        Swift.min(range.upperBound, Swift.max(range.lowerBound, self))
    }
}
