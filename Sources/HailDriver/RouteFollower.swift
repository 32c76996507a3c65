import Foundation
import HailCore
import HailTime

/// A `LocationSource` that drives a simulated car along a polyline at a set speed, one fix per
/// `interval`, for the simulator and the terminal driver app; standing still it reports nothing, like
/// the hardware behind a distance filter.
public actor RouteFollower: LocationSource {
    /// Where the car is.
    public private(set) var position: Coordinate
    /// Metres per second along the route.
    public let speed: Double
    /// Seconds between fixes while moving.
    public let interval: TimeInterval
    /// The accuracy radius every fix reports.
    public let accuracy: Double

    private let timeline: Timeline
    private var policy: LocationPolicy = .off
    private var route: [Coordinate] = []
    private var travelled: Double = 0
    private var lastReported: Coordinate?
    private var heading: Double = -1

    /// A car standing at `start`, driving at `speed` m/s when given a route.
    public init(
        start: Coordinate, speed: Double, interval: TimeInterval = 1, accuracy: Double = 5, timeline: Timeline
    ) {
        self.position = start
        self.speed = speed.isFinite && speed > 0 ? speed : 10
        self.interval = interval.isFinite && interval > 0 ? interval : 1
        self.accuracy = accuracy
        self.timeline = timeline
    }

    /// Drives from the current position through `waypoints`, replacing any route under way.
    public func drive(through waypoints: [Coordinate]) {
        route = [position] + waypoints
        travelled = 0
    }

    /// True when there is no route left to drive.
    public var isStopped: Bool { route.isEmpty }

    /// Fixes every `interval` while driving.
    public nonisolated func fixes() -> AsyncStream<LocationPoint> {
        AsyncStream { continuation in
            let task = Task { await self.run(into: continuation) }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Adopts the policy for the fixes to come.
    public func apply(_ policy: LocationPolicy) {
        self.policy = policy
    }

    private func run(into continuation: AsyncStream<LocationPoint>.Continuation) async {
        var next = timeline.now()
        while !Task.isCancelled {
            next = next.addingTimeInterval(interval)
            do { try await timeline.sleep(until: next) } catch { break }
            if let point = step(now: next) { continuation.yield(point) }
        }
        continuation.finish()
    }

    /// Moves one interval along the route and returns the fix the hardware would report, if any.
    private func step(now: Date) -> LocationPoint? {
        var moving = false
        if route.count >= 2 {
            let length = route.pathLength
            travelled = min(length, travelled + speed * interval)
            let fraction = length > 0 ? travelled / length : 1
            if let here = route.point(atFraction: fraction) {
                position = here.coordinate
                heading = here.bearing
            }
            moving = true
            if travelled >= length { route = [] }
        }
        guard !policy.isOff else { return nil }
        if let lastReported, lastReported.distance(to: position) < max(policy.distanceFilter, 0.01) { return nil }
        lastReported = position
        return LocationPoint(
            lat: position.lat, lng: position.lng, accuracy: accuracy, heading: heading,
            speed: moving ? speed : 0, t: now)
    }
}
