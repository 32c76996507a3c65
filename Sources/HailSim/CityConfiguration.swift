import Foundation

/// How the simulated city behaves: how many drivers and riders, how often riders ask, how drivers answer.
public struct CityConfiguration: Sendable, Hashable {
    /// Simulated drivers.
    public var drivers = 30
    /// Simulated riders.
    public var riders = 10
    /// The seed of every random choice in the city.
    public var seed: UInt64 = 1
    /// Mean seconds a rider waits between one trip's end and the next request.
    public var requestInterval: TimeInterval = 5
    /// The chance a driver accepts an offer (otherwise declines it).
    public var acceptProbability = 0.9
    /// The chance a rider cancels a trip once a driver is assigned.
    public var cancelProbability = 0.1
    /// Road speeds are multiplied by this; tests drive faster to finish sooner, under the server's
    /// 200 km/h jump filter.
    public var speedFactor = 1.0
    /// Standard deviation of the GPS noise added to each fix, in metres.
    public var gpsNoiseMeters = 4.0
    /// Seconds a driver waiting for a trip stays parked before moving to another corner of the town.
    public var idleParkSeconds: ClosedRange<TimeInterval> = 20...90
    /// Seconds a driver waits at the pickup before starting the trip.
    public var boardingSeconds: TimeInterval = 2
    /// Trips shorter than this (straight line, metres) are not requested.
    public var minimumTripMeters = 150.0
    /// Trips longer than this (straight line, metres) are not requested either: a whole-map crossing
    /// takes many minutes, and a demo should show trips ending.
    public var maximumTripMeters = 2000.0

    /// The share of the map's street corners, nearest its middle, where riders ask for rides and idle
    /// drivers cruise: the town, not every lane an OSM extract reaches.
    public var coreShare = 0.5

    /// Seconds the city runs before anything is measured. A city starts empty: in its first minutes no
    /// trip can have been long under way, so only the shortest ones end; after a warm-up the report
    /// describes a city in its stride, with trips ending at every stage of their length.
    public var warmup: TimeInterval = 0

    /// The network every simulated app is on (each with its own seeded faults).
    public var network = NetworkProfile.perfect
    /// True when the demo's console may press faults (a dead zone, a stalled socket, a killed app) on any app.
    public var pressableFaults = false
    /// The chance a fix is an outlier hundreds of metres off.
    public var outlierProbability = 0.005
    /// Wrong turns and long stops injected on trips under way, to score the server's trip alerts; nil: none.
    public var injection: SafetyInjection?

    /// The defaults: 30 drivers, 10 riders, one request per rider every ~5 s between trips.
    public init() {}
}
