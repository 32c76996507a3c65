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
    /// What the fare charged for, once completed: the distance and time the server priced.
    public var receipt: TripReceipt?
    /// The last published position of the driver, for clients that poll instead of streaming.
    public var driverLocation: DriverLocation?
    /// True when the driver must enter the rider's pickup PIN to start the trip; nil (false) from a server that
    /// does not know PINs. Every party sees it, so the driver's app can ask for the code.
    public var requiresPickupPIN: Bool?
    /// The 4-digit code the rider tells the driver at the pickup. Only the rider's own REST answers carry it: never
    /// the driver's, never a stream frame (a share link's viewers read those too).
    public var pickupPIN: String?
    /// The trip's latest safety alert (a route deviation, a long stop) with the rider's check-in answer once given.
    /// Like the PIN, only the rider's own REST answers carry it: the stream announces an alert with its own frame,
    /// and the driver never learns what the rider answered.
    public var alert: TripAlert?

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
        receipt: TripReceipt? = nil,
        driverLocation: DriverLocation? = nil,
        requiresPickupPIN: Bool? = nil,
        pickupPIN: String? = nil
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
        self.receipt = receipt
        self.driverLocation = driverLocation
        self.requiresPickupPIN = requiresPickupPIN
        self.pickupPIN = pickupPIN
    }
}

/// What a completed trip's fare was priced on, as the rider's receipt shows it: `{"distanceMeters": 4210,
/// "durationSeconds": 840}`.
public struct TripReceipt: Codable, Sendable, Hashable {
    /// The distance charged for, metres: the road the car drove (its fixes matched to the map).
    public var distanceMeters: Int
    /// The time charged for, seconds: from the start to the end of the trip.
    public var durationSeconds: Int

    /// Creates a receipt.
    public init(distanceMeters: Int, durationSeconds: Int) {
        self.distanceMeters = distanceMeters
        self.durationSeconds = durationSeconds
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
    /// True to require the driver to enter a 4-digit pickup PIN, which the rider's trip shows, before starting.
    /// Nil or false leaves it to the rider's cohort (the server's flags).
    public var requirePickupPIN: Bool?

    /// Creates a request.
    public init(pickup: Coordinate, dropoff: Coordinate, productID: ProductID, requirePickupPIN: Bool? = nil) {
        self.pickup = pickup
        self.dropoff = dropoff
        self.productID = productID
        self.requirePickupPIN = requirePickupPIN
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
    /// When the server received the fix, in server time.
    public var receivedAt: Date
    /// When the phone took the fix, in server time, as the server estimates it from the phone's own time
    /// (`FixTimeEstimator`): never after `receivedAt`. Nil from a server that does not send it.
    public var fixedAt: Date?

    /// Creates a published position.
    public init(coordinate: Coordinate, heading: Double, seq: Int64, receivedAt: Date, fixedAt: Date? = nil) {
        self.coordinate = coordinate
        self.heading = heading
        self.seq = seq
        self.receivedAt = receivedAt
        self.fixedAt = fixedAt
    }

    /// The instant the position's age counts from, in server time: when the fix was taken, or when it
    /// reached the server when that is all the server said.
    public var ageOrigin: Date { fixedAt ?? receivedAt }
}
