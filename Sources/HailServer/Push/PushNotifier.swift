import Foundation
import HailCore
import HailTime

/// Turns committed trip changes into pushes for the rider and delivers them off the commit path.
///
/// `tripChanged` only queues, so a slow push gateway never delays a trip answer or dispatch; one
/// delivery loop sends in commit order and retries a failed push with `Backoff`, a few times, since a
/// push that arrives minutes late ("your driver is here") is worse than none.
public actor PushNotifier {
    /// What happened to the deliveries so far.
    public struct Counts: Sendable, Hashable {
        /// Accepted by the sender.
        public var delivered = 0
        /// Given up after the last retry.
        public var failed = 0

        /// Creates counts.
        public init(delivered: Int = 0, failed: Int = 0) {
            self.delivered = delivered
            self.failed = failed
        }
    }

    private let sender: any PushSender
    private let time: Timeline
    private let backoff: Backoff
    private let attempts: Int
    private var queue: [(event: PushEvent, record: TripRecord)] = []
    private var enrichTrip: @Sendable (Trip) async -> Trip = { $0 }
    private var following: Following?
    /// The trips whose Live Activity is being refreshed, with the version the refresh belongs to.
    private var followed: [String: Int] = [:]
    /// The seq of the driver's position in each trip's last push, so a refresh goes out only for a newer one.
    private var pushedSeq: [String: Int64] = [:]

    /// How running trips are followed between state changes.
    private struct Following {
        let interval: Duration
        let read: @Sendable (String) async -> TripRecord?
    }
    private var draining = false
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// What happened to the deliveries so far.
    public private(set) var counts = Counts()
    private var metrics: ServerMetrics?

    /// Creates a notifier on `sender`; `attempts` per push, waiting `backoff` between them on `time`.
    public init(
        sender: any PushSender, time: Timeline = .system(), backoff: Backoff = Backoff(cap: 8), attempts: Int = 3
    ) {
        self.sender = sender
        self.time = time
        self.backoff = backoff
        self.attempts = max(1, attempts)
    }

    /// A webhook notifier from `HAIL_PUSH_WEBHOOK_URL` and `HAIL_PUSH_WEBHOOK_SECRET`, or nil when unset, on the
    /// server's clock `time`.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment, time: Timeline = .system()
    ) -> PushNotifier? {
        guard let text = environment["HAIL_PUSH_WEBHOOK_URL"], let url = URL(string: text),
            let secret = environment["HAIL_PUSH_WEBHOOK_SECRET"], !secret.isEmpty
        else { return nil }
        return PushNotifier(
            sender: WebhookPushSender(url: url, secret: Array(secret.utf8), now: { time.now() }), time: time)
    }

    /// Counts each delivery's outcome in `metrics` (`hail_push_deliveries_total` by result) from now on.
    public func reportDeliveries(to metrics: ServerMetrics) { self.metrics = metrics }

    /// Subscribes to every change `authority` commits.
    public func attach(to authority: TripAuthority) async {
        await authority.observe { [self] record, previous in
            await self.tripChanged(record, previous: previous)
        }
    }

    /// Adds what only the moment of sending knows (the live ETA, the driver's last position) to each trip pushed.
    public func enrich(_ transform: @escaping @Sendable (Trip) async -> Trip) {
        enrichTrip = transform
    }

    /// Refreshes the Live Activity of every running trip each `interval` (on the notifier's timeline) while its driver's position moves: an `etaRefreshed` push with the live ETA, no alert. A trip whose
    /// driver's position stops gets none, so its activity passes its stale date and shows the ETA as old.
    public func refreshActivities(
        every interval: Duration, read: @escaping @Sendable (String) async -> TripRecord?
    ) {
        following = Following(interval: interval, read: read)
    }

    /// Queues the push a committed change is worth, if any.
    public func tripChanged(_ record: TripRecord, previous: TripRecord?) {
        guard let event = PushEvent.event(from: previous?.trip.state, to: record.trip.state) else { return }
        enqueue(event, record)
    }

    private func enqueue(_ event: PushEvent, _ record: TripRecord) {
        queue.append((event, record))
        guard !draining else { return }
        draining = true
        Task { await drain() }
    }

    /// Wakes after the interval to refresh `tripID`'s activity, unless the trip changed state meanwhile (that
    /// change was pushed and follows on its own) or ended.
    private func follow(_ record: TripRecord) {
        let trip = record.trip
        guard let following, trip.state.isActive, trip.driver != nil, followed[trip.id] != trip.version else {
            if !trip.state.isActive {
                followed[trip.id] = nil
                pushedSeq[trip.id] = nil
            }
            return
        }
        followed[trip.id] = trip.version
        Task {
            try? await time.sleep(for: following.interval)
            await self.refreshDue(tripID: trip.id, version: trip.version)
        }
    }

    private func refreshDue(tripID: String, version: Int) async {
        guard followed[tripID] == version, let following else { return }
        followed[tripID] = nil
        guard let stored = await following.read(tripID), stored.trip.version == version, stored.trip.state.isActive
        else { return }
        var record = stored
        record.trip = await enrichTrip(stored.trip)
        guard let seq = record.trip.driverLocation?.seq, seq != pushedSeq[tripID] else {
            // The driver's position has not moved since the last push: wait for it, send nothing.
            follow(stored)
            return
        }
        enqueue(.etaRefreshed, stored)
    }

    /// Returns once every queued push has been delivered or given up.
    public func idle() async {
        guard draining || !queue.isEmpty else { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    private func drain() async {
        while !queue.isEmpty {
            let (event, committed) = queue.removeFirst()
            var record = committed
            record.trip = await enrichTrip(committed.trip)
            if event.endsActivity {
                pushedSeq[record.trip.id] = nil
            } else if let seq = record.trip.driverLocation?.seq {
                pushedSeq[record.trip.id] = seq
            }
            let delivery = PushDelivery(event: event, record: record, now: time.now())
            var random = SystemRandomNumberGenerator()
            var delivered = false
            for attempt in 1...attempts {
                do {
                    try await sender.send(delivery)
                    delivered = true
                    break
                } catch {
                    guard attempt < attempts else { break }
                    let wait = backoff.delay(afterAttempt: attempt, using: &random)
                    try? await time.sleep(for: .milliseconds(Int64((wait * 1000).rounded())))
                }
            }
            if delivered { counts.delivered += 1 } else { counts.failed += 1 }
            metrics?.pushDelivery(delivered: delivered)
            follow(committed)
        }
        draining = false
        let waiters = idleWaiters
        idleWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }
}
