import Foundation
import HailCore

/// A node's drain on SIGTERM, as a pure machine: events in (the signal, the runtime's ticks with what is still
/// open, the list of streams, the flush's end), actions out; `now` is always given, never read.
///
/// The order: unready at once (`/readyz` 503 `draining`) while still serving; after `grace` the listeners close
/// (a connect is refused, so a balancer goes elsewhere), and every WebSocket open then gets its 4012 close at a
/// moment of its own (stratified jitter: evenly spread, each at a seeded random point of its slot): the drivers'
/// streams first, over a window scaled to how many streams the node holds (`DrainSettings.plan`), then, after a
/// handover in which each moved driver's positions reach its watchers here through the bus, the watchers'
/// streams. The handover waits on evidence, not on the clock alone: a watcher whose trip's driver streamed here
/// moves as soon as that trip's positions reach the node again (`Event.positionsSeen`, at least `echo` after the
/// driver's close: its driver is back on another node), however early in the drain; without such evidence it
/// keeps its slot in the watchers' window, and never moves within `handoverWait` of its driver's close. A rider
/// thus loses positions while its driver moves or while it moves itself, not both at once.
/// Once the plan is over, whatever stream is left is closed, and when no stream and no request remains, the
/// acknowledged work is flushed and the node exits. At `bound` after the signal it exits whatever is open; a
/// second signal exits at once.
public struct DrainMachine: Sendable {
    /// Where the drain is.
    public enum Phase: Sendable, Hashable {
        /// No signal yet.
        case serving
        /// Unready, still accepting, until the grace is over.
        case announcing
        /// Listeners closing; waiting for the list of streams.
        case listing
        /// Closing streams over the spread window.
        case moving
        /// Waiting for the last streams and requests to end.
        case finishing
        /// Flushing the acknowledged work.
        case flushing
        /// Told the runtime to exit.
        case ended(DrainOutcome)
    }

    /// What the runtime tells the machine.
    public enum Event: Sendable, Hashable {
        /// SIGTERM (or SIGINT): the first starts the drain, another forces the exit.
        case terminate(at: Date)
        /// A periodic look: how many WebSockets and HTTP requests are still open.
        case tick(at: Date, streams: Int, requests: Int)
        /// The streams open once the listeners closed (the answer to `stopAccepting`), by connection id.
        case streamsListed(DrainStreams, at: Date)
        /// The flush finished.
        case flushed(at: Date)
        /// Positions of these trips reached the node's watchers through the bus, each at the time given (the latest
        /// since the last report).
        case positionsSeen([String: Date])
    }

    /// What the runtime does.
    public enum Action: Sendable, Hashable {
        /// `/readyz` answers 503 `draining` from now on.
        case markUnready
        /// Close the listeners, then list the open streams (`Event.streamsListed`).
        case stopAccepting
        /// Close these streams with 4012 (`WebSocketCloseCode.moveNow`).
        case close([UInt64])
        /// Close every stream still open with 4012 (those upgraded after the list, or slow to close).
        case closeRemaining
        /// Wait for the acknowledged work (pending history commits, pushes, publications), then `Event.flushed`.
        case flush
        /// Exit with the outcome's status.
        case exit(DrainOutcome)
    }

    /// The settings in force.
    public let settings: DrainSettings
    /// Where the drain is.
    public private(set) var phase = Phase.serving
    private var random: SplitMix64
    private var signalledAt: Date?
    /// When the streams listed are closed; nil until they are listed.
    public private(set) var plan: DrainPlan?
    /// Streams not yet closed, each with its moment, soonest first.
    private var schedule: [(at: Date, id: UInt64)] = []
    /// The trip each driver stream here serves, by connection id.
    private var servedTrips: [UInt64: String] = [:]
    /// The trip of each watcher not closed yet whose trip's driver streams here, by connection id.
    private var waitingWatchers: [UInt64: String] = [:]
    /// When each trip's driver stream here was closed.
    private var driverClosed: [String: Date] = [:]

    /// A machine with `settings`; `seed` draws the order and the moments of the closes.
    public init(settings: DrainSettings, seed: UInt64) {
        self.settings = settings
        random = SplitMix64(seed: seed)
    }

    /// When each stream not yet closed is due, soonest first (for tests and the drain's log).
    public var pendingCloses: [(at: Date, id: UInt64)] { schedule }

    /// The machine's answer to `event`, in the order to carry it out.
    public mutating func handle(_ event: Event) -> [Action] {
        if case .ended = phase { return [] }
        switch event {
        case .terminate(let now):
            guard phase == .serving else { return end(.forced) }
            signalledAt = now
            phase = .announcing
            return [.markUnready] + (settings.grace <= 0 ? stopAccepting() : [])
        case .tick(let now, let streams, let requests):
            return tick(now, streams: streams, requests: requests)
        case .streamsListed(let streams, let now):
            guard phase == .listing else { return [] }
            schedule(streams, from: now)
            phase = .moving
            return due(at: now)
        case .flushed:
            guard phase == .flushing else { return [] }
            return end(.drained)
        case .positionsSeen(let arrivals):
            guard phase == .moving else { return [] }
            return driversBack(arrivals)
        }
    }

    /// The watchers whose driver is back elsewhere, by `arrivals` of their trips' positions after its close, go now.
    private mutating func driversBack(_ arrivals: [String: Date]) -> [Action] {
        var back: Set<String> = []
        for (trip, arrival) in arrivals {
            if let closed = driverClosed[trip], arrival >= closed.addingTimeInterval(settings.echo) {
                back.insert(trip)
            }
        }
        guard !back.isEmpty else { return [] }
        let ids = Set(waitingWatchers.filter { back.contains($0.value) }.keys)
        guard !ids.isEmpty else { return [] }
        for id in ids { waitingWatchers[id] = nil }
        let closing = schedule.filter { ids.contains($0.id) }.map(\.id)
        schedule.removeAll { ids.contains($0.id) }
        return closing.isEmpty ? [] : [.close(closing)]
    }

    private mutating func tick(_ now: Date, streams: Int, requests: Int) -> [Action] {
        guard let signalledAt else { return [] }
        if now.timeIntervalSince(signalledAt) >= settings.bound { return end(.boundReached) }
        switch phase {
        case .announcing where now.timeIntervalSince(signalledAt) >= settings.grace:
            return stopAccepting()
        case .moving:
            var actions = due(at: now)
            if schedule.isEmpty, let plan, now >= plan.end {
                phase = .finishing
                actions.append(.closeRemaining)
                actions += finishIfIdle(streams: streams, requests: requests)
            }
            return actions
        case .finishing:
            return finishIfIdle(streams: streams, requests: requests)
        default:
            return []
        }
    }

    private mutating func stopAccepting() -> [Action] {
        phase = .listing
        return [.stopAccepting]
    }

    /// The drivers over their window, then the watchers over theirs.
    private mutating func schedule(_ streams: DrainStreams, from now: Date) {
        let elapsed = signalledAt.map { now.timeIntervalSince($0) } ?? 0
        let plan = settings.plan(streams, at: now, elapsed: elapsed)
        self.plan = plan
        servedTrips = streams.servedTrips.filter { streams.drivers.contains($0.key) }
        let served = Set(servedTrips.values)
        waitingWatchers = streams.watchedTrips.filter { served.contains($0.value) }
        schedule =
            spread(streams.drivers, from: plan.start, over: plan.driversWindow)
            + spread(streams.watchers, from: plan.watchersStart, over: plan.watchersWindow)
    }

    /// Slot i of n in the window, shuffled, each stream at a random point of its slot.
    private mutating func spread(_ ids: [UInt64], from start: Date, over window: TimeInterval) -> [(
        at: Date, id: UInt64
    )] {
        var order = ids
        order.shuffle(using: &random)
        let count = Double(order.count)
        return order.enumerated().map { index, id in
            let unit = Double(random.next() >> 11) * 0x1p-53
            return (start.addingTimeInterval(window * (Double(index) + unit) / count), id)
        }
    }

    /// The streams whose moment has come. A watcher still waiting for its driver's positions from elsewhere is put
    /// off to `handoverWait` after its driver's close (within the bound) if that is later.
    private mutating func due(at now: Date) -> [Action] {
        let count = schedule.prefix { $0.at <= now }.count
        guard count > 0 else { return [] }
        let ids = schedule.prefix(count).map(\.id)
        schedule.removeFirst(count)
        let latest = signalledAt.map { $0.addingTimeInterval(settings.bound - 1) } ?? now
        var closing: [UInt64] = []
        for id in ids {
            if let trip = servedTrips[id] { driverClosed[trip] = now }
            if let trip = waitingWatchers[id], let closed = driverClosed[trip] {
                let wait = min(closed.addingTimeInterval(settings.handoverWait), latest)
                if wait > now {
                    let index = schedule.firstIndex { $0.at > wait } ?? schedule.endIndex
                    schedule.insert((wait, id), at: index)
                    continue
                }
            }
            waitingWatchers[id] = nil
            closing.append(id)
        }
        return closing.isEmpty ? [] : [.close(closing)]
    }

    /// The flush once no stream and no request is open.
    private mutating func finishIfIdle(streams: Int, requests: Int) -> [Action] {
        guard streams == 0, requests == 0 else { return [] }
        phase = .flushing
        return [.flush]
    }

    private mutating func end(_ outcome: DrainOutcome) -> [Action] {
        phase = .ended(outcome)
        return [.exit(outcome)]
    }
}
