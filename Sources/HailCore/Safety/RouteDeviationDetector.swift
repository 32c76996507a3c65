import Foundation

/// Notices a car on a trip that leaves its planned route: farther than `corridorMeters` from the plan for at least
/// `minimumSeconds`, and not coming back (no nearer to the plan than when it left the corridor). An excursion ends
/// only when the car is back well inside the corridor (within `reentryMeters`): a car on a street that runs along the
/// corridor's edge has matched positions on either side of it, and one a few metres inside is not the car back on
/// its plan (Monaco, issue 41: a wrong turn's excursion restarted by one position at 92 m, alarmed 16 s late). Given
/// the trip's `destination`, a car that keeps getting nearer to it is not deviating either: against a plan the
/// server guessed, a parallel street a block over is as short a way as the plan's, and drivers take it (the route a
/// driver's navigation reported is judged without one: leaving it by the corridor is leaving the way the car was
/// told to go, and a way the navigation takes instead comes as a re-route). A re-route the driver's navigation
/// reports, or a plan the server replaces, is `replan(_:destination:)`, never a deviation. Positions are judged by
/// when they were taken: a backlog flushed after a dead zone is judged as it arrives, and one taken before the newest
/// position seen (a backlog flushed after newer fixes) changes nothing, so an old fix back in the corridor cannot
/// undo what newer ones showed. Pure: each matched position comes with its time, and the detector reads no clock.
public struct RouteDeviationDetector: Sendable {
    /// One deviation, reported once per excursion out of the corridor.
    public struct Deviation: Sendable, Hashable {
        /// When the car left the corridor (the first position outside it).
        public var since: Date
        /// How far from the plan the car was when it was reported, metres.
        public var distanceMeters: Double
    }

    /// How far from the plan a car may be, metres (100 by default).
    public let corridorMeters: Double
    /// How long a car must stay out of the corridor, seconds, before it is a deviation.
    public let minimumSeconds: Double
    /// How near the plan a car out of the corridor must come back, metres, for its excursion to end (75 by default).
    public let reentryMeters: Double
    /// The planned route, as the route provider gave it.
    public private(set) var plan: [Coordinate]
    /// Where the trip ends, when known: progress towards it is no deviation.
    public private(set) var destination: Coordinate?
    private var leftAt: (at: Date, distance: Double, toDestination: Double?)?
    private var reported = false
    private var lastTaken: Date?

    /// A detector for `plan`, towards `destination` when given.
    public init(
        plan: [Coordinate], destination: Coordinate? = nil, corridorMeters: Double = 100, minimumSeconds: Double = 10,
        reentryMeters: Double = 75
    ) {
        self.plan = plan
        self.destination = destination
        self.corridorMeters = corridorMeters
        self.minimumSeconds = minimumSeconds
        self.reentryMeters = min(reentryMeters, corridorMeters)
    }

    /// A new plan (a re-route the driver's app reported, or the server's own), towards `destination` when progress
    /// towards it excuses leaving the plan: what happened off the old one is forgotten.
    public mutating func replan(_ plan: [Coordinate], destination: Coordinate?) {
        self.plan = plan
        self.destination = destination
        leftAt = nil
        reported = false
    }

    /// Takes the car's matched position taken at `at`; the deviation the first time this excursion qualifies, else
    /// nil.
    public mutating func observe(_ position: Coordinate, at: Date) -> Deviation? {
        if let lastTaken, at < lastTaken { return nil }
        lastTaken = at
        let distance = Self.distance(from: position, to: plan)
        if distance <= reentryMeters {
            leftAt = nil
            reported = false
            return nil
        }
        let toDestination = destination.map { position.distance(to: $0) }
        guard let left = leftAt else {
            // Between the re-entry distance and the corridor's edge a car not out yet stays in.
            if distance > corridorMeters { leftAt = (at, distance, toDestination) }
            return nil
        }
        guard !reported, at.timeIntervalSince(left.at) >= minimumSeconds, distance >= left.distance else { return nil }
        // Nearer the destination than when it left the corridor: another way there, not away from it.
        if let toDestination, let before = left.toDestination, toDestination < before { return nil }
        reported = true
        return Deviation(since: left.at, distanceMeters: distance)
    }

    /// The shortest distance from `point` to the polyline `line`, metres (to its one point for a single point;
    /// infinite for none). Each segment is measured on a local flat projection, accurate at city scale.
    public static func distance(from point: Coordinate, to line: [Coordinate]) -> Double {
        guard let first = line.first else { return .infinity }
        guard line.count > 1 else { return point.distance(to: first) }
        let metresPerDegreeLat = Coordinate.earthRadiusMeters * .pi / 180
        let metresPerDegreeLng = metresPerDegreeLat * cos(point.lat * .pi / 180)
        func flat(_ c: Coordinate) -> (x: Double, y: Double) {
            ((c.lng - point.lng) * metresPerDegreeLng, (c.lat - point.lat) * metresPerDegreeLat)
        }
        var best = Double.infinity
        for index in 1..<line.count {
            let a = flat(line[index - 1])
            let b = flat(line[index])
            let dx = b.x - a.x
            let dy = b.y - a.y
            let length = dx * dx + dy * dy
            let t = length == 0 ? 0 : max(0, min(1, -(a.x * dx + a.y * dy) / length))
            let x = a.x + t * dx
            let y = a.y + t * dy
            best = min(best, (x * x + y * y).squareRoot())
        }
        return best
    }
}
