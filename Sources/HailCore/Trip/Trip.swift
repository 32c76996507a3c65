import Foundation

/// A ride as the server last committed it. Every change the server makes bumps `version` by one.
public struct Trip: Codable, Sendable, Hashable, Identifiable {
    /// The trip id, a string the server chooses.
    public var id: String
    /// Where the trip is in its life.
    public var state: TripState
    /// Where the rider is picked up.
    public var pickup: Coordinate
    /// Where the rider is going.
    public var dropoff: Coordinate
    /// The kind of ride requested.
    public var productID: ProductID
    /// The server's change counter: 1 when created, one more on every committed change.
    public var version: Int
    /// The assigned driver, from acceptance on.
    public var driver: Driver?
    /// The server's ETA in seconds: to the pickup before the trip starts, to the dropoff during it.
    public var etaSeconds: Int?
    /// The final fare, once completed.
    public var fare: Money?
    /// The last published position of the driver, for clients that poll instead of streaming.
    public var driverLocation: DriverLocation?

    /// Creates a trip value.
    public init(
        id: String,
        state: TripState,
        pickup: Coordinate,
        dropoff: Coordinate,
        productID: ProductID,
        version: Int,
        driver: Driver? = nil,
        etaSeconds: Int? = nil,
        fare: Money? = nil,
        driverLocation: DriverLocation? = nil
    ) {
        self.id = id
        self.state = state
        self.pickup = pickup
        self.dropoff = dropoff
        self.productID = productID
        self.version = version
        self.driver = driver
        self.etaSeconds = etaSeconds
        self.fare = fare
        self.driverLocation = driverLocation
    }
}

/// What the rider asks for when they tap "Request".
public struct TripRequest: Codable, Sendable, Hashable {
    /// Where to be picked up.
    public var pickup: Coordinate
    /// Where to go.
    public var dropoff: Coordinate
    /// Which product, such as `economy`.
    public var productID: ProductID

    /// Creates a request.
    public init(pickup: Coordinate, dropoff: Coordinate, productID: ProductID) {
        self.pickup = pickup
        self.dropoff = dropoff
        self.productID = productID
    }
}

/// The price and pickup time of one product, shown before the rider confirms.
public struct Estimate: Codable, Sendable, Hashable {
    /// The product this estimate is for.
    public var productID: ProductID
    /// The estimated fare.
    public var fare: Money
    /// Seconds until a driver could be at the pickup.
    public var etaSeconds: Int

    /// Creates an estimate.
    public init(productID: ProductID, fare: Money, etaSeconds: Int) {
        self.productID = productID
        self.fare = fare
        self.etaSeconds = etaSeconds
    }
}

/// A driver position as the server published it to riders.
public struct DriverLocation: Codable, Sendable, Hashable {
    /// Where the driver is (snapped to the road once the server has roads).
    public var coordinate: Coordinate
    /// Direction of travel in degrees, 0 = north.
    public var heading: Double
    /// The driver's sequence number for this position; newer positions have larger numbers.
    public var seq: Int64
    /// When the server received the fix, in server time. Age is measured from here.
    public var receivedAt: Date

    /// Creates a published position.
    public init(coordinate: Coordinate, heading: Double, seq: Int64, receivedAt: Date) {
        self.coordinate = coordinate
        self.heading = heading
        self.seq = seq
        self.receivedAt = receivedAt
    }
}
