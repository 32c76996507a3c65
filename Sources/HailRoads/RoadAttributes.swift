/// What routing needs to know about one road (an OSM way, or a street of the generated city).
public struct RoadAttributes: Sendable, Hashable {
    /// The road's class.
    public var roadClass: RoadClass
    /// The speed a car is assumed to drive, in km/h: the posted `maxspeed`, else the class default.
    public var speedKmh: Double
    /// Which ways a car may drive it.
    public var direction: RoadDirection
    /// True for `junction=roundabout` (or `circular`).
    public var isRoundabout: Bool
    /// True when the road runs through a tunnel (GPS is lost there).
    public var isTunnel: Bool
    /// True when the road runs over a bridge.
    public var isBridge: Bool
    /// The road's name, empty when it has none.
    public var name: String

    /// Creates attributes.
    public init(
        roadClass: RoadClass, speedKmh: Double, direction: RoadDirection = .both, isRoundabout: Bool = false,
        isTunnel: Bool = false, isBridge: Bool = false, name: String = ""
    ) {
        self.roadClass = roadClass
        self.speedKmh = speedKmh
        self.direction = direction
        self.isRoundabout = isRoundabout
        self.isTunnel = isTunnel
        self.isBridge = isBridge
        self.name = name
    }

    /// The speed in metres per second.
    public var speedMetersPerSecond: Double { speedKmh / 3.6 }
}
