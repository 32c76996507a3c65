/// The body of `POST /v1/drivers/me/status`: `{"online": true, "degraded": false}`.
public struct DriverStatusRequest: Codable, Sendable, Hashable, Validatable {
    /// True to take trips, false to stop.
    public var online: Bool
    /// True when thermal state or Low Power Mode has lowered location accuracy; nil when not reported.
    public var degraded: Bool?

    /// Creates a status change.
    public init(online: Bool, degraded: Bool? = nil) {
        self.online = online
        self.degraded = degraded
    }

    /// Two booleans have no invalid combination once decoded.
    public func validate() throws(APIError) {}
}
