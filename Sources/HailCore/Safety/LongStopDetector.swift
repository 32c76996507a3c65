import Foundation

/// Notices a car on a trip that stands for more than `minimumSeconds` (3 minutes by default) away from the drop-off.
/// It judges matched positions, not one noisy fix: the car stands while every position stays within `radiusMeters`
/// of where it stopped. A gap in the positions longer than `gapSeconds` (a tunnel, a dead zone) starts the count
/// again, since nothing says the car stood through it, and a stop in a jam (other cars standing on the same road,
/// which the caller judges) is not counted. Pure: each position comes with its time.
public struct LongStopDetector: Sendable {
    /// One long stop, reported once per stop.
    public struct LongStop: Sendable, Hashable {
        /// Where the car stands.
        public var at: Coordinate
        /// Since when, the first position of the stop.
        public var since: Date
    }

    /// How far positions may wander and still be one stop, metres.
    public let radiusMeters: Double
    /// How long a stop must last, seconds.
    public let minimumSeconds: Double
    /// A stop within this distance of the drop-off is the trip ending, not an alarm, metres.
    public let dropoffRadiusMeters: Double
    /// Positions further apart than this, seconds, break the stop.
    public let gapSeconds: Double
    /// Where the trip ends.
    public let dropoff: Coordinate
    private var anchor: (at: Coordinate, since: Date)?
    private var lastSeen: Date?
    private var reported = false

    /// A detector for a trip ending at `dropoff`.
    public init(
        dropoff: Coordinate, minimumSeconds: Double = 180, radiusMeters: Double = 25, dropoffRadiusMeters: Double = 100,
        gapSeconds: Double = 30
    ) {
        self.dropoff = dropoff
        self.minimumSeconds = minimumSeconds
        self.radiusMeters = radiusMeters
        self.dropoffRadiusMeters = dropoffRadiusMeters
        self.gapSeconds = gapSeconds
    }

    /// Takes the car's matched position at `at`, and whether other cars stand on the same road now (a jam); the
    /// long stop the first time this stop qualifies, else nil.
    public mutating func observe(_ position: Coordinate, at: Date, jammed: Bool = false) -> LongStop? {
        defer { lastSeen = at }
        let gap = lastSeen.map { at.timeIntervalSince($0) > gapSeconds } ?? false
        guard let current = anchor, !gap, !jammed, position.distance(to: current.at) <= radiusMeters else {
            // Moving again, out of a gap, or in a jam: a stop, if any, begins here.
            anchor = (position, at)
            reported = false
            return nil
        }
        guard !reported, at.timeIntervalSince(current.since) > minimumSeconds,
            current.at.distance(to: dropoff) > dropoffRadiusMeters
        else { return nil }
        reported = true
        return LongStop(at: current.at, since: current.since)
    }
}
