import Foundation
import HailCore
import HailDriver
import HailRoads
import HailTime

/// A simulated phone in a simulated car: it drives a `Route` at the road speeds (times the city's speed
/// factor), and its GPS speaks as iOS 17's `CLLocationUpdate.liveUpdates()` does, its updates going through the
/// very `LiveUpdateMapping` the shipped `LiveUpdatesLocationSource` uses, so the city measures what ships.
///
/// The updates (`LiveLocationUpdate`, a recorded update's shape): once a second while it drives, a fix with seeded
/// GPS noise (now and then an outlier hundreds of metres off: multipath); in a tunnel, no location and
/// `locationUnavailable`; coming to rest, one `isStationary` update carrying the fix it stopped at, then nothing until
/// it moves, as CoreLocation pauses. The mapping turns them into fixes (the policy's distance filter applied to the
/// fixes, as the shipped source does) and the fix status: current, standing with its fix, or unavailable. A fix on
/// demand is the latest location an update carried, when under 5 s old, as the shipped source answers; location
/// off stops the updates. A relaunched app starts a fresh mapping, as a new source would. Where the car truly was
/// goes to `truth`, once a second.
actor SimulatedCar: LocationSource {
    /// A road segment that runs through a tunnel, by its two ends in driving order.
    struct Segment: Sendable, Hashable {
        var from: Coordinate
        var to: Coordinate
    }

    /// Where the car truly was, for judging the rider's screen.
    nonisolated let truth = TruthTrace()
    /// Where the car truly is (the fixes it reports are noisy).
    private(set) var position: Coordinate
    private let timeline: Timeline
    private let speedFactor: Double
    private let noiseMeters: Double
    private var random: SplitMix64
    private var policy: LocationPolicy = .off
    private var route: Route?
    private var routeStartedAt = Date.distantPast
    private var heading = -1.0
    /// The shipped source's decisions, and whether this stop's stationary update has been given.
    private var mapping = LiveUpdateMapping()
    private var announcedStop = false
    /// The latest location an update carried: what a fix on demand answers.
    private var latest: LocationPoint?
    private let tunnels: Set<Segment>
    private let outlierProbability: Double
    /// True while the car is in a tunnel (no fix).
    private(set) var inTunnel = false
    /// Metres the car has truly driven since it was made, along the roads (not the chords between its
    /// once-a-second positions, which cut every bend): what a fare should charge for, between two readings.
    private(set) var odometer = 0.0
    /// The metres along the current route at each of its coordinates, and how far along it the car was.
    private var routeMetres: [Double] = []
    private var metresAlong = 0.0
    /// The speed over the last second, metres per second.
    private var speed = 0.0
    /// What the hardware said last about its fix, and who listens (each app instance's runtime).
    private var status = FixStatus.current
    private var statusListeners: [AsyncStream<FixStatus>.Continuation] = []

    init(
        start: Coordinate, timeline: Timeline, speedFactor: Double, noiseMeters: Double, random: SplitMix64,
        tunnels: Set<Segment> = [], outlierProbability: Double = 0
    ) {
        position = start
        self.tunnels = tunnels
        self.outlierProbability = max(0, outlierProbability)
        self.timeline = timeline
        self.speedFactor = speedFactor > 0 && speedFactor.isFinite ? speedFactor : 1
        self.noiseMeters = max(0, noiseMeters)
        self.random = random
    }

    /// Starts driving `route` from now, replacing any route under way.
    func drive(_ route: Route) {
        self.route = route
        routeStartedAt = timeline.now()
        var travelled = 0.0
        routeMetres = route.coordinates.indices.map { index in
            if index > 0 { travelled += route.coordinates[index - 1].distance(to: route.coordinates[index]) }
            return travelled
        }
        metresAlong = 0
    }

    /// Stops the car where it is (its route dropped), as a driver who pulls over does.
    func halt() {
        route = nil
    }

    /// True when the car has no route left.
    var isStopped: Bool { route == nil }

    /// The direction the car last drove in, degrees; nil before it has moved.
    var travelHeading: Double? { heading < 0 ? nil : heading }

    nonisolated func fixes() -> AsyncStream<LocationPoint> {
        AsyncStream { continuation in
            let task = Task { await self.run(into: continuation) }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func apply(_ policy: LocationPolicy) {
        self.policy = policy
    }

    nonisolated func fixStatus() -> AsyncStream<FixStatus> {
        AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            Task { await self.listen(continuation) }
        }
    }

    /// The latest location the updates carried, when under 5 s old (the shipped source's answer); nil with
    /// location off.
    func currentFix() async -> LocationPoint? {
        guard !policy.isOff, let latest, timeline.now().timeIntervalSince(latest.t) < 5 else { return nil }
        return latest
    }

    private func listen(_ continuation: AsyncStream<FixStatus>.Continuation) {
        continuation.yield(status)
        statusListeners.append(continuation)
    }

    private func run(into continuation: AsyncStream<LocationPoint>.Continuation) async {
        // A new app instance's source: a fresh mapping, and a car at rest says so again.
        mapping = LiveUpdateMapping()
        announcedStop = false
        var next = timeline.now()
        while !Task.isCancelled {
            next = next.addingTimeInterval(1)
            do { try await timeline.sleep(until: next) } catch { break }
            if let point = step(now: next) { continuation.yield(point) }
        }
        continuation.finish()
    }

    private func step(now: Date) -> LocationPoint? {
        speed = 0
        if let route {
            let elapsed = now.timeIntervalSince(routeStartedAt) * speedFactor
            if let here = route.position(atSeconds: elapsed) {
                speed = here.coordinate.distance(to: position)
                let along = Self.metres(along: route, routeMetres, atSeconds: elapsed)
                odometer += max(0, along - metresAlong)
                metresAlong = along
                position = here.coordinate
                heading = here.bearing
            }
            inTunnel = Self.segment(of: route, atSeconds: elapsed).map { tunnels.contains($0) } ?? false
            if elapsed >= route.duration {
                self.route = nil
                inTunnel = false
            }
        }
        truth.record(position, at: now, blind: inTunnel)
        // Location off: the shipped source has stopped its updates.
        guard !policy.isOff, let update = liveUpdate(now: now) else { return nil }
        if let location = update.location { latest = location }
        let output = mapping.map(update, distanceFilter: policy.distanceFilter)
        if let status = output.status, status != self.status {
            self.status = status
            // A killed app's runtime listens no more: its stream is terminated and goes.
            statusListeners.removeAll {
                if case .terminated = $0.yield(status) { return true }
                return false
            }
        }
        return output.fix
    }

    /// What `CLLocationUpdate.liveUpdates()` would give this second, nil when it gives nothing.
    private func liveUpdate(now: Date) -> LiveLocationUpdate? {
        if inTunnel {
            announcedStop = false
            return LiveLocationUpdate(location: nil, locationUnavailable: true)
        }
        guard route == nil else {
            announcedStop = false
            return LiveLocationUpdate(location: noisyFix(now: now))
        }
        // At rest: one stationary update with the fix it stopped at, then silence until the car moves.
        guard !announcedStop else { return nil }
        announcedStop = true
        return LiveLocationUpdate(location: noisyFix(now: now), stationary: true)
    }

    /// A fix of the true position with GPS noise, now and then an outlier.
    private func noisyFix(now: Date) -> LocationPoint {
        var north = random.gaussian() * noiseMeters
        var east = random.gaussian() * noiseMeters
        if random.unit() < outlierProbability {
            // Multipath: 80-250 m off in any direction, claiming the usual accuracy.
            let distance = 80 + random.unit() * 170
            let bearing = random.unit() * 2 * .pi
            north = distance * cos(bearing)
            east = distance * sin(bearing)
        }
        let metresPerDegree = 111_195.0
        let noisy = Coordinate(
            lat: position.lat + north / metresPerDegree,
            lng: position.lng + east / (metresPerDegree * max(0.01, cos(position.lat * .pi / 180))))
        return LocationPoint(
            lat: noisy.lat, lng: noisy.lng, accuracy: max(5, noiseMeters * 2), heading: heading, speed: speed, t: now)
    }

    /// How many metres along `route` (whose coordinates lie `metres` along it) the car is `seconds` after its start.
    static func metres(along route: Route, _ metres: [Double], atSeconds seconds: Double) -> Double {
        let times = route.times
        guard metres.count == times.count, let last = metres.last, times.count > 1 else { return 0 }
        guard seconds > 0 else { return 0 }
        guard seconds < times[times.count - 1] else { return last }
        var low = 1
        var high = times.count - 1
        while low < high {
            let middle = (low + high) / 2
            if times[middle] < seconds { low = middle + 1 } else { high = middle }
        }
        let span = times[low] - times[low - 1]
        let fraction = span > 0 ? (seconds - times[low - 1]) / span : 1
        return metres[low - 1] + (metres[low] - metres[low - 1]) * fraction
    }

    /// The segment of `route` the car is on `seconds` after its start, nil off the route's ends.
    static func segment(of route: Route, atSeconds seconds: Double) -> Segment? {
        let times = route.times
        guard route.coordinates.count > 1, seconds >= 0, seconds <= times[times.count - 1] else { return nil }
        var low = 1
        var high = times.count - 1
        while low < high {
            let middle = (low + high) / 2
            if times[middle] < seconds { low = middle + 1 } else { high = middle }
        }
        return Segment(from: route.coordinates[low - 1], to: route.coordinates[low])
    }

    /// The segments of `graph` that run through tunnels.
    static func tunnels(of graph: RoadGraph) -> Set<Segment> {
        var segments = Set<Segment>()
        for edge in graph.edges where graph.roads[Int(edge.road)].isTunnel {
            segments.insert(
                Segment(from: graph.coordinates[Int(edge.source)], to: graph.coordinates[Int(edge.target)]))
        }
        return segments
    }
}
