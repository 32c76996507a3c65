import HailCore

/// `POST /v1/trips` bodies: both ends on Earth and a product id of sensible length.
extension TripRequest: Validatable {
    /// Checks the pickup, the dropoff and the product id, in that order.
    public func validate() throws(APIError) {
        try FieldCheck.coordinate(pickup, at: "pickup")
        try FieldCheck.coordinate(dropoff, at: "dropoff")
        try FieldCheck.text(productID.rawValue, maxLength: ProtocolLimits.maxIdentifierBytes, at: "productID")
    }
}
