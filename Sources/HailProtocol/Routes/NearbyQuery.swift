import HailCore

/// The query of `GET /v1/drivers/nearby`: `?lat=43.73&lng=7.42`.
public struct NearbyQuery: Sendable, Hashable {
    /// Latitude of the point to search around.
    public var lat: Double
    /// Longitude of the point to search around.
    public var lng: Double

    /// Creates a query.
    public init(lat: Double, lng: Double) {
        self.lat = lat
        self.lng = lng
    }

    /// Reads and checks the query parameters, naming `lat` or `lng` when one is missing or wrong.
    public init(query: [String: String]) throws(APIError) {
        lat = try Self.number("lat", in: query)
        lng = try Self.number("lng", in: query)
        try FieldCheck.coordinate(.init(lat: lat, lng: lng), at: "")
    }

    /// `lat=43.73&lng=7.42`.
    public var queryString: String {
        QueryString.build([("lat", String(lat)), ("lng", String(lng))])
    }

    private static func number(_ name: String, in query: [String: String]) throws(APIError) -> Double {
        guard let text = query[name], !text.isEmpty else { throw APIError.missingField(name) }
        guard let value = Double(text), value.isFinite else {
            throw APIError.invalidField(name, "\(name) must be a number")
        }
        return value
    }
}
