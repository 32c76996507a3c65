import HailCore

/// The body of `POST /v1/estimates`: `{"pickup": {...}, "dropoff": {...}}`; the answer is `[Estimate]`.
public struct EstimateRequest: Codable, Sendable, Hashable, Validatable {
    /// Where the rider would be picked up.
    public var pickup: Coordinate
    /// Where the rider would go.
    public var dropoff: Coordinate

    /// Creates a request.
    public init(pickup: Coordinate, dropoff: Coordinate) {
        self.pickup = pickup
        self.dropoff = dropoff
    }

    /// Both ends must be places on Earth.
    public func validate() throws(APIError) {
        try FieldCheck.coordinate(pickup, at: "pickup")
        try FieldCheck.coordinate(dropoff, at: "dropoff")
    }
}
