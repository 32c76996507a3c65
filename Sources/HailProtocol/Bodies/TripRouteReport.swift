import HailCore

/// The body of `PUT /v1/trips/{id}/route`: the route the driver's navigation follows on the trip under way, at the
/// start and after each re-route, `{"revision": 1733580000123, "path": "<encoded polyline>"}`.
public struct TripRouteReport: Codable, Sendable, Hashable, Validatable {
    /// The app's number for this route, greater for each new one of the trip (the phone's clock in milliseconds
    /// does, across app launches); the server keeps the greatest and ignores the rest.
    public var revision: Int64
    /// The route from where the car is to the drop-off as a Google encoded polyline at precision 5, at most
    /// `ProtocolLimits.maxRoutePoints` points and `ProtocolLimits.maxRoutePathBytes` bytes.
    public var path: String

    /// Creates a report of `coordinates` (encoded here); a route of more than `ProtocolLimits.maxRoutePoints` points
    /// is thinned to that many, evenly along its points, its ends kept.
    public init(revision: Int64, coordinates: [Coordinate]) {
        self.revision = revision
        let limit = ProtocolLimits.maxRoutePoints
        guard coordinates.count > limit else {
            path = Polyline.encode(coordinates)
            return
        }
        let step = Double(coordinates.count - 1) / Double(limit - 1)
        path = Polyline.encode((0..<limit).map { coordinates[Int((Double($0) * step).rounded())] })
    }

    /// The route's points, decoded; nil when `path` is no polyline.
    public var coordinates: [Coordinate]? { try? Polyline.decode(path) }

    /// The revision is not negative; the path is a polyline of 2 to `maxRoutePoints` points on Earth, within
    /// `maxRoutePathBytes`.
    public func validate() throws(APIError) {
        guard revision >= 0 else { throw APIError.invalidField("revision", "revision must not be negative") }
        guard path.utf8.count <= ProtocolLimits.maxRoutePathBytes else {
            throw APIError.invalidField("path", "path must be at most \(ProtocolLimits.maxRoutePathBytes) bytes")
        }
        guard let points = coordinates else {
            throw APIError.invalidField("path", "path is not an encoded polyline")
        }
        guard points.count >= 2, points.count <= ProtocolLimits.maxRoutePoints else {
            throw APIError.invalidField(
                "path", "path must hold 2 to \(ProtocolLimits.maxRoutePoints) points, not \(points.count)")
        }
        for (index, point) in points.enumerated() {
            try FieldCheck.coordinate(point, at: FieldPath.index("path", index))
        }
    }
}
