import Foundation
import HailCore
import Synchronization

/// Watches the trips under way whose cars report to this node: each one's planned route and its car's matched
/// positions go into the pure `RouteDeviationDetector` and `LongStopDetector`, and what they report is handed to
/// the alert sink (which the services point at the trip authority).
///
/// The plan is the route provider's, from where the car is at its first position of the trip to the drop-off, made
/// off the caller's thread (a route search does not belong on the network loop); positions before it is ready are
/// judged for stops only. A trip that has no road plan (no road network, or no route) is watched for stops only: a
/// straight line is no route a car could be judged against. A re-route the driver's app reports replaces the plan.
/// A node that takes a trip's car over mid-way (the driver's stream moved) plans afresh from where the car is.
public final class TripWatch: Sendable {
    /// The planned route from a point (for a car facing `heading`, when known) to another, or nil when there is none
    /// worth judging a car against.
    public typealias Planner = @Sendable (_ from: Coordinate, _ heading: Double?, _ to: Coordinate) -> [Coordinate]?
    /// Where an alert goes: the trip and the alert.
    public typealias Sink = @Sendable (_ tripID: String, _ alert: TripAlert) -> Void

    /// A watch not fed for this long, seconds, is of a trip this node no longer hears about (its car moved to
    /// another node, or it ended there): swept when another trip begins to be watched.
    static let staleSeconds: TimeInterval = 600

    private struct Watched: Sendable {
        var deviation: RouteDeviationDetector?
        var stop: LongStopDetector
        var planning = false
        var lastSeen: Date?
    }

    private let planner: Planner
    // Sharded like the fleet's drivers: positions from every loop reach it, each locking only its trip's shard.
    private let watched = ShardedMap<String, Watched>()
    private let sink = Mutex<Sink?>(nil)

    /// A watch that plans with `planner`.
    public init(planner: @escaping Planner) {
        self.planner = planner
    }

    /// Sends every alert to `sink` from now on.
    public func onAlert(_ sink: @escaping Sink) {
        self.sink.withLock { $0 = sink }
    }

    /// The trips watched now.
    public var count: Int { watched.count }

    /// Takes the matched position of the car on `record`'s trip at `now` (server time). A trip not under way is
    /// forgotten.
    public func observe(_ record: TripRecord, at position: Coordinate, now: Date) {
        let tripID = record.trip.id
        guard record.trip.state == .onTrip else {
            forget(tripID: tripID)
            return
        }
        let (alerts, isNew) = watched.withValue(tripID) { entry -> ([TripAlert], Bool) in
            let isNew = entry == nil
            var watch = entry ?? Watched(stop: LongStopDetector(dropoff: record.trip.dropoff), planning: true)
            var alerts: [TripAlert] = []
            if let stop = watch.stop.observe(position, at: now) {
                alerts.append(TripAlert(kind: .longStop, since: stop.since, raisedAt: now))
            }
            if let deviation = watch.deviation?.observe(position, at: now) {
                alerts.append(TripAlert(kind: .routeDeviation, since: deviation.since, raisedAt: now))
            }
            watch.lastSeen = now
            entry = watch
            return (alerts, isNew)
        }
        if isNew {
            sweep(now: now)
            plan(tripID: tripID, from: position, to: record.trip.dropoff)
        }
        guard !alerts.isEmpty, let sink = sink.withLock({ $0 }) else { return }
        for alert in alerts { sink(tripID, alert) }
    }

    /// Starts watching `record`'s trip, which has just started at `now`, against `plan` (nil: for stops only); a
    /// watch the trip already had (its first position came first) is replaced.
    public func start(_ record: TripRecord, plan: [Coordinate]?, now: Date) {
        watched.withValue(record.trip.id) {
            $0 = Watched(
                deviation: plan.map { RouteDeviationDetector(plan: $0, destination: record.trip.dropoff) },
                stop: LongStopDetector(dropoff: record.trip.dropoff), lastSeen: now)
        }
    }

    /// A re-route the driver's navigation reported (or the server's own new plan): the car is judged against
    /// `path` from now on, and what happened off the old plan is forgotten.
    public func replan(tripID: String, path: [Coordinate]) {
        watched.withValue(tripID) { entry in
            guard var watch = entry else { return }
            if watch.deviation == nil {
                watch.deviation = RouteDeviationDetector(plan: path, destination: watch.stop.dropoff)
            } else {
                watch.deviation?.replan(path)
            }
            watch.planning = false
            entry = watch
        }
    }

    /// The plan `tripID` is judged against now, if any.
    public func plan(tripID: String) -> [Coordinate]? { watched[tripID]?.deviation?.plan }

    /// Stops watching `tripID` (it ended, or its car left this node).
    public func forget(tripID: String) {
        watched.withValue(tripID) { $0 = nil }
    }

    private func sweep(now: Date) {
        watched.removeAll { _, watch in
            watch.lastSeen.map { now.timeIntervalSince($0) > Self.staleSeconds } ?? false
        }
    }

    private func plan(tripID: String, from: Coordinate, to: Coordinate) {
        let planner = planner
        Task.detached { [self] in
            let path = planner(from, nil, to)
            watched.withValue(tripID) { entry in
                // Ended meanwhile, or a reported re-route or the start's plan came first: that one stands.
                guard var watch = entry, watch.planning else { return }
                watch.planning = false
                watch.deviation = path.map { RouteDeviationDetector(plan: $0, destination: to) }
                entry = watch
            }
        }
    }
}
