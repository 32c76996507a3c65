import Foundation

/// Notices a car on a trip that stands for `minimumSeconds` (3 minutes by default) away from the drop-off. It judges
/// matched positions, not one noisy fix, by when each was taken rather than when it reached the server (a stalled
/// socket delivers a standing car's keep-alives late and together): the car stands while every position stays within
/// `radiusMeters` of where it stopped. A gap in the positions (a dead zone, a reconnect, keep-alives held up) is
/// judged by the positions on either side of it: the same place after it as before, and every fix inside it that a
/// backlog brings, is the car standing through it; a position elsewhere (a tunnel driven through, a car that drove
/// off) starts a new count from there. A stop in a jam (other cars standing on the same road, which the caller
/// judges) is not counted. A position taken before the newest one seen (a backlog flushed after newer fixes) changes
/// nothing: what was judged on newer evidence stands. Pure: each position comes with its time.
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
    /// Where the trip ends.
    public let dropoff: Coordinate
    private var anchor: (at: Coordinate, since: Date)?
    private var lastTaken: Date?
    private var reported = false

    /// A detector for a trip ending at `dropoff`.
    public init(
        dropoff: Coordinate, minimumSeconds: Double = 180, radiusMeters: Double = 25, dropoffRadiusMeters: Double = 100
    ) {
        self.dropoff = dropoff
        self.minimumSeconds = minimumSeconds
        self.radiusMeters = radiusMeters
        self.dropoffRadiusMeters = dropoffRadiusMeters
    }

    /// Takes the car's matched position taken at `at`, and whether other cars stand on the same road now (a jam);
    /// the long stop the first time this stop qualifies, else nil.
    public mutating func observe(_ position: Coordinate, at: Date, jammed: Bool = false) -> LongStop? {
        if let lastTaken, at < lastTaken { return nil }
        lastTaken = at
        guard let current = anchor, !jammed, position.distance(to: current.at) <= radiusMeters else {
            // Moving again, elsewhere after a gap, or in a jam: a stop, if any, begins here.
            anchor = (position, at)
            reported = false
            return nil
        }
        guard !reported, at.timeIntervalSince(current.since) >= minimumSeconds,
            current.at.distance(to: dropoff) > dropoffRadiusMeters
        else { return nil }
        reported = true
        return LongStop(at: current.at, since: current.since)
    }
}
