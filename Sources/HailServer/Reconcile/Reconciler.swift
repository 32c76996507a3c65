import Foundation
import HailCore
import HailTime

/// Repairs what a commit's after-work left wrong when a backend failed (Redis refusing, a lost commit reply, a
/// crash between commit and publish), without a restart: every few seconds, and within a second of a backend
/// coming back (`ReconcileSchedule`).
///
/// One pass, in order: marks in the trip store the changes published since the last pass
/// (`TripAuthority.flushPublished`); repairs the shared trip record of the drivers whose record a write failed to
/// update and of the next `sweepLimit` drivers this node ingests (`DriverSweep`; `Fleet.repairTrips`, decided by
/// `DriverTripRepair`), so a pass's cost is bounded however many drivers the node serves; redelivers the changes still
/// unpublished `redeliverAfter` seconds after their commit (`TripAuthority.redeliver`). Each node repairs the drivers
/// whose positions it takes, so a driver is repaired by the node serving them. A shared trip store hands each owed
/// change to one node at a time (`TripStore.unpublished` claims it, in PostgreSQL), so two nodes' passes do not both
/// redeliver it; were they to, it would be harmless (apps ignore a version they have, the observers are idempotent).
///
/// The same code runs embedded, where the stores are this process's own and a pass finds nothing to do.
public actor Reconciler {
    /// Tunables.
    public struct Configuration: Sendable, Hashable {
        /// Between passes while they succeed.
        public var interval: TimeInterval = 5
        /// Between passes while they fail, and how often the runtime looks at the schedule.
        public var retryInterval: TimeInterval = 1
        /// How long after its commit a change not yet marked published is redelivered: longer than a commit's own
        /// publish takes, and than `interval` (its node marks it at its next pass).
        public var redeliverAfter: TimeInterval = 15
        /// Changes redelivered in one pass at most.
        public var redeliverLimit = 100
        /// Drivers whose trip record one pass compares with the trip store, beyond those a failed write named
        /// (`DriverSweep`): a node with more drivers than this compares each once every few passes.
        public var sweepLimit = 1000

        /// The defaults.
        public init() {}
    }

    /// What one pass did.
    public struct Pass: Sendable, Hashable {
        /// Drivers whose trip record was rewritten.
        public var driversRepaired = 0
        /// Trip changes published again.
        public var redelivered = 0
        /// False when a backend failed part-way (the rest waits for the next pass).
        public var succeeded = true

        /// A pass's outcome.
        public init(driversRepaired: Int = 0, redelivered: Int = 0, succeeded: Bool = true) {
            self.driversRepaired = driversRepaired
            self.redelivered = redelivered
            self.succeeded = succeeded
        }
    }

    private let configuration: Configuration
    private let fleet: Fleet
    private let trips: any TripStore
    private let authority: TripAuthority
    private let time: Timeline
    private let metrics: ServerMetrics
    private var schedule: ReconcileSchedule
    private var sweep: DriverSweep

    /// Creates the reconciler.
    public init(
        configuration: Configuration = Configuration(), fleet: Fleet, trips: any TripStore, authority: TripAuthority,
        time: Timeline, metrics: ServerMetrics
    ) {
        self.configuration = configuration
        self.fleet = fleet
        self.trips = trips
        self.authority = authority
        self.time = time
        self.metrics = metrics
        schedule = ReconcileSchedule(interval: configuration.interval, retryInterval: configuration.retryInterval)
        sweep = DriverSweep(limit: configuration.sweepLimit)
    }

    /// Runs passes as the schedule says until the task is cancelled.
    public func run() async {
        while !Task.isCancelled {
            do {
                try await time.sleep(for: .milliseconds(Int64(configuration.retryInterval * 1000)))
            } catch {
                return
            }
            await tick()
        }
    }

    /// One look at the schedule: a pass when it is due (or a failed trip-record write asks for one).
    public func tick() async {
        if fleet.hasSuspects { schedule.nudge() }
        guard schedule.isDue(at: time.now()) else { return }
        let pass = await reconcile()
        if schedule.finished(succeeded: pass.succeeded, at: time.now()) { metrics.reconcilerHealed() }
    }

    /// One pass (see the type's summary).
    @discardableResult
    public func reconcile() async -> Pass {
        var pass = Pass()
        do {
            try await authority.flushPublished()
        } catch {
            pass.succeeded = false
        }
        let suspects = fleet.takeSuspects()
        do {
            let swept = sweep.next(of: await fleet.knownDriverIDs())
            pass.driversRepaired = try await fleet.repairTrips(of: Set(swept).union(suspects))
        } catch {
            fleet.suspect(suspects)
            pass.succeeded = false
        }
        do {
            let owed = try await trips.unpublished(
                committedBefore: time.now().addingTimeInterval(-configuration.redeliverAfter),
                limit: configuration.redeliverLimit)
            for record in owed { await authority.redeliver(record) }
            pass.redelivered = owed.count
            try await authority.flushPublished()
        } catch {
            pass.succeeded = false
        }
        metrics.reconciled(pass.driversRepaired, redelivered: pass.redelivered, succeeded: pass.succeeded)
        return pass
    }
}
