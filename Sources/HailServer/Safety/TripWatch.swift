import Foundation
import HailCore
import Synchronization

/// Watches the trips under way whose cars report to this node: each one's planned route and its car's matched
/// positions go into the pure `RouteDeviationDetector` and `LongStopDetector`, and what they report is handed to
/// the alert sink (which the services point at the trip authority).
///
/// The plan is the route the driver's navigation reported (`TripRecord.route`, at the start and on each re-route)
/// when there is one; until then the route provider's, from where the car is to the drop-off, made off the caller's
/// thread by a bounded planner (a route search does not belong on the network loop, and a burst of new watches
/// must not start a search each at once); positions before it is ready are judged for stops only. A trip that has
/// no road plan (no road network, or no route) is watched for stops only: a straight line is no route a car could
/// be judged against. A reported route replaces the plan whichever node it reached: it travels in the trip's record,
/// which every position brings here. A node that takes a trip's car over mid-way (the driver's stream moved) plans
/// afresh from where the car is, or takes the reported route.
public final class TripWatch: Sendable {
    /// The planned route from a point (for a car facing `heading`, when known) to another, or nil when there is none
    /// worth judging a car against.
    public typealias Planner = @Sendable (_ from: Coordinate, _ heading: Double?, _ to: Coordinate) -> [Coordinate]?
    /// Where an alert goes: the trip and the alert.
    public typealias Sink = @Sendable (_ tripID: String, _ alert: TripAlert) -> Void

    /// A watch not fed for this long, seconds, is of a trip this node no longer hears about (its car moved to
    /// another node, or it ended there): swept a few at a time as other trips begin to be watched.
    static let staleSeconds: TimeInterval = 600
    /// The watches looked at for staleness each time a trip begins to be watched: the sweep costs each new watch
    /// a constant, and since each watch enters the queue once, every one is looked at again before the queue has
    /// grown by as many new ones.
    static let sweepStep = 4
    /// Route searches run at once, and waiting: past it the oldest waiting search is dropped (its trip is judged
    /// for stops only, until its driver reports a route).
    static let plannerThreads = 2
    static let plannerBacklog = 256

    private struct Watched: Sendable {
        var deviation: RouteDeviationDetector?
        var stop: LongStopDetector
        var planning = false
        /// When the trip began to be watched (its start, or the first position this node saw of it): positions
        /// taken before are not the trip's.
        var from: Date
        var lastSeen: Date?
        /// The revision of the driver's reported route the plan is, nil for the server's own plan.
        var revision: Int64?

        /// Judges the car against `route` from now on, when it is newer than the reported route in use. Without the
        /// destination guard: the route is the way the driver's navigation told the car to go, and another way it
        /// takes comes as a re-route, so a car out of the corridor is off its way even while it nears the drop-off
        /// (Monaco, issue 41: a wrong turn's street wound nearer the drop-off for 12 s, and the guard held its alarm
        /// that long).
        mutating func take(_ route: ReportedRoute?) {
            guard let route, route.revision > (revision ?? -1) else { return }
            if deviation == nil {
                deviation = RouteDeviationDetector(plan: route.path)
            } else {
                deviation?.replan(route.path, destination: nil)
            }
            revision = route.revision
            planning = false
        }
    }

    private struct PlanJob: Sendable {
        var tripID: String
        var from: Coordinate
        var to: Coordinate
    }

    private struct Planning: Sendable {
        var waiting: [PlanJob] = []
        var running = 0
    }

    private struct SweepQueue: Sendable {
        var ids: [String] = []
        var head = 0
    }

    private let planner: Planner
    // Sharded like the fleet's drivers: positions from every loop reach it, each locking only its trip's shard.
    private let watched = ShardedMap<String, Watched>()
    private let sink = Mutex<Sink?>(nil)
    private let planning = Mutex(Planning())
    private let sweepQueue = Mutex(SweepQueue())

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

    /// A matched position of the car and when the phone took it (server time).
    public struct Fix: Sendable, Hashable {
        /// Where the car was, matched to the road when the roads are known.
        public var position: Coordinate
        /// When the phone took it, on the server's clock.
        public var takenAt: Date

        /// A position taken at `takenAt`.
        public init(position: Coordinate, takenAt: Date) {
            self.position = position
            self.takenAt = takenAt
        }
    }

    /// Takes the matched position of the car on `record`'s trip, taken and received at `now`; see
    /// `observe(_:fixes:now:jammed:)`.
    public func observe(_ record: TripRecord, at position: Coordinate, now: Date, jammed: Bool = false) {
        observe(record, fixes: [Fix(position: position, takenAt: now)], now: now, jammed: jammed)
    }

    /// Takes matched positions of the car on `record`'s trip that reached the server at `now` (a live batch's newest,
    /// or a backlog's flushed after a dead zone), and whether other cars stand on the same road (a jam: no long
    /// stop). They are judged by when they were taken, oldest first: a wrong turn a backlog shows is raised as it
    /// arrives, and a standing car's keep-alives held up by a stalled socket still count their time. Positions taken
    /// before the trip began to be watched (the way to the pickup, flushed after the start) are not the trip's. A
    /// trip not under way is forgotten; a route the driver reported that is newer than the plan replaces it.
    public func observe(_ record: TripRecord, fixes: [Fix], now: Date, jammed: Bool = false) {
        let tripID = record.trip.id
        guard record.trip.state == .onTrip else {
            forget(tripID: tripID)
            return
        }
        let taken = fixes.sorted { $0.takenAt < $1.takenAt }
        guard let first = taken.first else { return }
        let (alerts, isNew, needsPlan) = watched.withValue(tripID) { entry -> ([TripAlert], Bool, Bool) in
            let isNew = entry == nil
            var watch =
                entry
                ?? Watched(stop: LongStopDetector(dropoff: record.trip.dropoff), planning: true, from: first.takenAt)
            watch.take(record.route)
            var alerts: [TripAlert] = []
            for fix in taken where fix.takenAt >= watch.from {
                if let stop = watch.stop.observe(fix.position, at: fix.takenAt, jammed: jammed) {
                    alerts.append(TripAlert(kind: .longStop, since: stop.since, raisedAt: now))
                }
                if let deviation = watch.deviation?.observe(fix.position, at: fix.takenAt) {
                    alerts.append(TripAlert(kind: .routeDeviation, since: deviation.since, raisedAt: now))
                }
            }
            watch.lastSeen = now
            entry = watch
            return (alerts, isNew, isNew && watch.planning)
        }
        if isNew { sweep(adding: tripID, now: now) }
        if needsPlan, let newest = taken.last {
            plan(PlanJob(tripID: tripID, from: newest.position, to: record.trip.dropoff))
        }
        guard !alerts.isEmpty, let sink = sink.withLock({ $0 }) else { return }
        for alert in alerts { sink(tripID, alert) }
    }

    /// Starts watching `record`'s trip, which has just started at `now`, against `plan` (nil: for stops only); a
    /// watch the trip already had (its first position came first) is replaced, except a route its driver reported,
    /// which stays the plan.
    public func start(_ record: TripRecord, plan: [Coordinate]?, now: Date) {
        let isNew = watched.withValue(record.trip.id) { entry -> Bool in
            let reported = entry?.revision == nil ? nil : entry
            var watch = Watched(
                deviation: reported?.deviation
                    ?? plan.map { RouteDeviationDetector(plan: $0, destination: record.trip.dropoff) },
                stop: LongStopDetector(dropoff: record.trip.dropoff), from: now, lastSeen: now,
                revision: reported?.revision)
            watch.take(record.route)
            defer { entry = watch }
            return entry == nil
        }
        if isNew { sweep(adding: record.trip.id, now: now) }
    }

    /// A route the driver's navigation reported (`revision`), or the server's own new plan (no revision): the car is
    /// judged against `path` from now on, and what happened off the old plan is forgotten. A reported route no newer
    /// than the one in use changes nothing, and neither does a server's plan once the driver reported one.
    public func replan(tripID: String, path: [Coordinate], revision: Int64? = nil) {
        watched.withValue(tripID) { entry in
            guard var watch = entry else { return }
            if let revision {
                watch.take(ReportedRoute(revision: revision, path: path, reportedAt: .distantPast))
            } else if watch.revision == nil {
                if watch.deviation == nil {
                    watch.deviation = RouteDeviationDetector(plan: path, destination: watch.stop.dropoff)
                } else {
                    watch.deviation?.replan(path, destination: watch.stop.dropoff)
                }
                watch.planning = false
            }
            entry = watch
        }
    }

    /// The plan `tripID` is judged against now, if any.
    public func plan(tripID: String) -> [Coordinate]? { watched[tripID]?.deviation?.plan }

    /// Stops watching `tripID` (it ended, or its car left this node).
    public func forget(tripID: String) {
        watched.withValue(tripID) { $0 = nil }
    }

    /// Puts `tripID` in the sweep's queue and looks at the `sweepStep` oldest entries in it: a watch gone is dropped
    /// from the queue, a stale one is forgotten, the others go to the back.
    private func sweep(adding tripID: String, now: Date) {
        let looked = sweepQueue.withLock { queue -> [String] in
            queue.ids.append(tripID)
            let end = min(queue.head + Self.sweepStep, queue.ids.count - 1)
            let taken = Array(queue.ids[queue.head..<max(queue.head, end)])
            queue.head += taken.count
            if queue.head > 64, queue.head * 2 > queue.ids.count {
                queue.ids.removeFirst(queue.head)
                queue.head = 0
            }
            return taken
        }
        var kept: [String] = []
        for id in looked {
            let stays = watched.withValue(id) { entry -> Bool in
                guard let watch = entry else { return false }
                if let seen = watch.lastSeen, now.timeIntervalSince(seen) > Self.staleSeconds {
                    entry = nil
                    return false
                }
                return true
            }
            if stays { kept.append(id) }
        }
        guard !kept.isEmpty else { return }
        sweepQueue.withLock { $0.ids.append(contentsOf: kept) }
    }

    /// Queues a route search for a trip met without a plan; at most `plannerThreads` run at once.
    private func plan(_ job: PlanJob) {
        let starts = planning.withLock { state -> Bool in
            if state.waiting.count >= Self.plannerBacklog { state.waiting.removeFirst() }
            state.waiting.append(job)
            guard state.running < Self.plannerThreads else { return false }
            state.running += 1
            return true
        }
        guard starts else { return }
        Task.detached { [self] in drainPlans() }
    }

    /// Runs the waiting searches one after another until none is left.
    private func drainPlans() {
        while let job = planning.withLock({ state -> PlanJob? in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }) {
            let path = planner(job.from, nil, job.to)
            watched.withValue(job.tripID) { entry in
                // Ended meanwhile, or a reported re-route or the start's plan came first: that one stands.
                guard var watch = entry, watch.planning else { return }
                watch.planning = false
                watch.deviation = path.map { RouteDeviationDetector(plan: $0, destination: job.to) }
                entry = watch
            }
        }
    }
}
