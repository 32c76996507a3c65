import HailCore

/// What the rider's Live Activity shows: the `content-state` of the trip's Live Activity pushes.
///
/// An iOS widget's `ActivityAttributes.ContentState` can be this type as-is. ActivityKit decodes a pushed
/// `content-state` with a plain `JSONDecoder`, so nothing here relies on HailJSON's date format: the one
/// time is whole seconds since 1970, like `aps.timestamp`.
public struct TripActivityContent: Codable, Sendable, Hashable {
    /// The trip state's wire name.
    public var state: TripState
    /// The server's ETA in seconds (to the pickup, then to the dropoff), when it has one.
    public var etaSeconds: Int?
    /// The driver's first name, from acceptance on.
    public var driverName: String?
    /// Make and model of the car.
    public var carModel: String?
    /// The licence plate.
    public var plate: String?
    /// The final fare, once the trip has completed.
    public var fare: Money?
    /// When the driver's position behind the ETA reached the server (seconds since 1970, server clock): the
    /// pin's freshness, so the lock screen can say the ETA is old instead of showing it with confidence.
    public var positionReceivedAt: Int?

    /// Creates content.
    public init(
        state: TripState, etaSeconds: Int? = nil, driverName: String? = nil, carModel: String? = nil,
        plate: String? = nil, fare: Money? = nil, positionReceivedAt: Int? = nil
    ) {
        self.state = state
        self.etaSeconds = etaSeconds
        self.driverName = driverName
        self.carModel = carModel
        self.plate = plate
        self.fare = fare
        self.positionReceivedAt = positionReceivedAt
    }

    /// What `trip` shows: its state, ETA, driver, fare and the age of its driver's position.
    public init(trip: Trip) {
        self.init(
            state: trip.state, etaSeconds: trip.etaSeconds, driverName: trip.driver?.name,
            carModel: trip.driver?.carModel, plate: trip.driver?.plate, fare: trip.fare,
            positionReceivedAt: trip.driverLocation.map { Int($0.receivedAt.timeIntervalSince1970.rounded(.down)) })
    }
}
