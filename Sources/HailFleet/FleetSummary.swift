/// How a fleet's rides ended, printed by `hail fleet` as one JSON line when it stops.
public struct FleetSummary: Encodable, Sendable, Hashable {
    /// How long the fleet rode, in seconds.
    public var seconds: Double
    /// Rides by the state they ended in (`completed`, `cancelled`, `noDriversFound`; `notRequested` when the request
    /// never made a trip; a ride still under way when the fleet stopped is counted by its state then).
    public var rides: [String: Int] = [:]

    /// A summary of a fleet that rode `seconds`.
    public init(seconds: Double) { self.seconds = seconds }
}
