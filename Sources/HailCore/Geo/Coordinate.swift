/// A point on the Earth in WGS 84 degrees, as the wire carries it: `{"lat": 43.73, "lng": 7.42}`.
public struct Coordinate: Codable, Sendable, Hashable {
    /// Latitude in degrees, -90 (south pole) to 90 (north pole).
    public var lat: Double
    /// Longitude in degrees, -180 to 180, positive east of Greenwich.
    public var lng: Double

    /// Creates a coordinate without checking it; call `validationProblem` on anything from outside.
    public init(lat: Double, lng: Double) {
        self.lat = lat
        self.lng = lng
    }

    /// Why this coordinate cannot be a place on Earth, or nil when it can.
    ///
    /// The message names the component (`lat` or `lng`) so that the wire layer can prefix the field path.
    public var validationProblem: CoordinateProblem? {
        if !lat.isFinite { return CoordinateProblem(component: "lat", message: "lat must be a finite number") }
        if !lng.isFinite { return CoordinateProblem(component: "lng", message: "lng must be a finite number") }
        if !(-90...90).contains(lat) {
            return CoordinateProblem(component: "lat", message: "lat must be between -90 and 90")
        }
        if !(-180...180).contains(lng) {
            return CoordinateProblem(component: "lng", message: "lng must be between -180 and 180")
        }
        return nil
    }
}

/// What is wrong with a coordinate: the component at fault and a message a developer can act on.
public struct CoordinateProblem: Sendable, Hashable {
    /// `lat` or `lng`.
    public let component: String
    /// A sentence naming the accepted range.
    public let message: String
}
