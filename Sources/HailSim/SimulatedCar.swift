import Foundation
import HailCore
import HailDriver
import HailRoads

/// A simulated phone in a simulated car: it drives a `Route` at the road speeds (times the city's speed
/// factor) and reports one fix per second with seeded GPS noise, honouring the policy's distance filter
/// as the hardware does.
actor SimulatedCar: LocationSource {
    /// Where the car truly is (the fixes it reports are noisy).
    private(set) var position: Coordinate
    private let timeline: DriverTimeline
    private let speedFactor: Double
    private let noiseMeters: Double
    private var random: SimRandom
    private var policy: LocationPolicy = .off
    private var route: Route?
    private var routeStartedAt = Date.distantPast
    private var heading = -1.0
    private var lastReported: Coordinate?

    init(start: Coordinate, timeline: DriverTimeline, speedFactor: Double, noiseMeters: Double, random: SimRandom) {
        position = start
        self.timeline = timeline
        self.speedFactor = speedFactor > 0 && speedFactor.isFinite ? speedFactor : 1
        self.noiseMeters = max(0, noiseMeters)
        self.random = random
    }

    /// Starts driving `route` from now, replacing any route under way.
    func drive(_ route: Route) {
        self.route = route
        routeStartedAt = timeline.now()
    }

    /// True when the car has no route left.
    var isStopped: Bool { route == nil }

    nonisolated func fixes() -> AsyncStream<LocationPoint> {
        AsyncStream { continuation in
            let task = Task { await self.run(into: continuation) }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func apply(_ policy: LocationPolicy) {
        self.policy = policy
    }

    private func run(into continuation: AsyncStream<LocationPoint>.Continuation) async {
        var next = timeline.now()
        while !Task.isCancelled {
            next = next.addingTimeInterval(1)
            do { try await timeline.sleepUntil(next) } catch { break }
            if let point = step(now: next) { continuation.yield(point) }
        }
        continuation.finish()
    }

    private func step(now: Date) -> LocationPoint? {
        var speed = 0.0
        if let route {
            let elapsed = now.timeIntervalSince(routeStartedAt) * speedFactor
            if let here = route.position(atSeconds: elapsed) {
                speed = here.coordinate.distance(to: position)
                position = here.coordinate
                heading = here.bearing
            }
            if elapsed >= route.duration { self.route = nil }
        }
        guard !policy.isOff else { return nil }
        // The filter judges the true position: noise alone must not make a parked car report.
        if let lastReported, lastReported.distance(to: position) < max(policy.distanceFilter, 0.01) { return nil }
        lastReported = position
        let north = random.gaussian() * noiseMeters
        let east = random.gaussian() * noiseMeters
        let metresPerDegree = 111_195.0
        let noisy = Coordinate(
            lat: position.lat + north / metresPerDegree,
            lng: position.lng + east / (metresPerDegree * max(0.01, cos(position.lat * .pi / 180))))
        return LocationPoint(
            lat: noisy.lat, lng: noisy.lng, accuracy: max(5, noiseMeters * 2), heading: heading, speed: speed, t: now)
    }
}
