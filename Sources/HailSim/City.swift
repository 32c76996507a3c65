import Foundation
import HailClient
import HailCore
import HailDriver
import HailNetTransport
import HailRoads
import HailServer
import HailTime

/// A simulated city against a running Hail server: drivers who roam and serve trips and riders who
/// request them, each a real rider or driver runtime over the real transports, every random choice drawn
/// from one seed.
@MainActor
public final class City {
    /// Mints a token for a role and subject, as the server's token authority would.
    public typealias TokenMinter = @Sendable (_ role: Role, _ subject: String) -> String

    /// What the city measured so far.
    public private(set) var report = CityReport()
    /// The settings.
    public let configuration: CityConfiguration

    private let server: URL
    private let mint: TokenMinter
    private let graph: RoadGraph
    private let clock: any Clock<Duration>
    private let timeline: Timeline
    private var waiters: [(condition: (CityReport) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = []
    private var finished = false
    private var drivers: [SimDriver] = []
    private var riders: [SimRider] = []
    private var traces: [String: TruthTrace] = [:]
    /// The apps and the city's time now, for the demo's console (`City+Console.swift`).
    var consoleApps: (drivers: [SimDriver], riders: [SimRider], now: Date) { (drivers, riders, timeline.now()) }
    /// Each trip change a driver saw confirmed, with when: the server's truth the riders are held to.
    private var confirmed: [String: [(version: Int, state: TripState, fare: Money?, at: Date)]] = [:]
    private var startedAt: Date?
    /// When measuring began: the start, or the end of the warm-up.
    private var measuredFrom: Date?
    /// What each driver had sent when measuring began.
    private var sentBeforeMeasuring: [String: DriverLocationPipeline.Stats] = [:]
    /// What each driver's battery had spent by policy when measuring began.
    private var batteryBeforeMeasuring: [String: [String: BatteryModel.Share]] = [:]

    /// A city on `graph` whose clients talk to `server`; `clock` runs every wait and `origin` is the date
    /// its current instant stands for.
    public init<C: Clock<Duration>>(
        configuration: CityConfiguration, server: URL, tokens: @escaping TokenMinter, graph: RoadGraph, clock: C,
        origin: Date
    ) {
        self.configuration = configuration
        self.server = server
        self.mint = tokens
        self.graph = graph
        self.clock = clock
        self.timeline = Timeline(clock: clock, origin: origin)
    }

    /// Runs every driver and rider until the calling task is cancelled; drivers go offline on the way out.
    public func run() async {
        defer { finish() }
        let connector: SocketConnector
        do { connector = SocketConnector(transport: try NetSocketTransport()) } catch { return }
        let world = CityWorld(
            server: server, mint: mint, router: RoadRouter(graph: graph),
            spots: CityWorld.spots(of: graph, coreShare: configuration.coreShare),
            tunnels: SimulatedCar.tunnels(of: graph), clock: clock, timeline: timeline, connector: connector,
            configuration: configuration)
        guard !world.spots.isEmpty else { return }
        var random = SplitMix64(seed: configuration.seed)
        startedAt = timeline.now()
        if configuration.warmup <= 0 { measuredFrom = startedAt }
        let drivers = (0..<configuration.drivers).map {
            SimDriver(id: "sim-driver-\($0 + 1)", world: world, random: random.split()) { [weak self] trip, at in
                guard let self, self.isMeasuring else { return }
                self.confirmed[trip.id, default: []].append((trip.version, trip.state, trip.fare, at))
            }
        }
        traces = Dictionary(uniqueKeysWithValues: drivers.map { ($0.id, $0.car.truth) })
        let riders = (0..<configuration.riders).map {
            SimRider(
                id: "sim-rider-\($0 + 1)", world: world, random: random.split(),
                truth: { [weak self] in self?.traces[$0] }, measuring: { [weak self] in self?.isMeasuring ?? false }
            ) { [weak self] outcome in
                self?.record(outcome)
            }
        }
        self.drivers = drivers
        self.riders = riders
        await withTaskGroup(of: Void.self) { group in
            for driver in drivers { group.addTask { await driver.run() } }
            for rider in riders { group.addTask { await rider.run() } }
            if configuration.warmup > 0, let startedAt {
                group.addTask { await self.startMeasuring(at: startedAt.addingTimeInterval(self.configuration.warmup)) }
            }
        }
        await connector.shutdown()
    }

    /// True once the warm-up is over: what happens from then on is measured.
    public var isMeasuring: Bool { measuredFrom != nil }

    /// The warm-up ends at `mark`: the city is busy as a running one is, and from here on it is measured.
    private func startMeasuring(at mark: Date) async {
        do { try await timeline.sleep(until: mark) } catch { return }
        measuredFrom = timeline.now()
        for driver in drivers {
            sentBeforeMeasuring[driver.id] = driver.sent
            batteryBeforeMeasuring[driver.id] = driver.battery.byPolicy
        }
    }

    /// Returns true once `condition` holds for the report, or false when the city stops first.
    public func waitUntil(_ condition: @escaping (CityReport) -> Bool) async -> Bool {
        if condition(report) { return true }
        if finished { return false }
        return await withCheckedContinuation { continuation in
            waiters.append((condition, continuation))
        }
    }

    private func record(_ outcome: RiderOutcome) {
        // A trip asked for during the warm-up still counts when it ends afterwards, as in any window of a
        // running city.
        guard isMeasuring else { return }
        switch outcome {
        case .requested: report.requested += 1
        case .requestFailed: report.requestFailures += 1
        case .pickupETA(let seconds): report.pickupETAs.append(seconds)
        case .assigned(let seconds): report.secondsToAssign.append(seconds)
        case .completed(let fare):
            report.completed += 1
            if let fare { report.fares.append(fare) }
        case .cancelled: report.cancelled += 1
        case .noDriversFound: report.noDriversFound += 1
        case .versionWentBack: report.versionRegressions += 1
        case .appKilled: report.appKills += 1
        }
        let current = report
        waiters.removeAll { waiter in
            guard waiter.condition(current) else { return false }
            waiter.continuation.resume(returning: true)
            return true
        }
    }

    /// The wrong turns and long stops injected so far, with when each truly began.
    public var injections: [InjectedEvent] { drivers.flatMap(\.injections) }

    /// The trips a driver saw under way (confirmed `onTrip`).
    public var tripsUnderWay: Set<String> {
        Set(confirmed.filter { $0.value.contains { $0.state == .onTrip } }.keys)
    }

    /// The measured report so far: the riders' screens against the cars' truth, the trips, what the
    /// drivers sent. Trip changes confirmed in the last `grace` seconds are not yet held against riders
    /// (a rider in backoff catches up within 30 s).
    public func measuredReport(map: String, grace: TimeInterval = 45) -> SimulationReport {
        let now = timeline.now()
        var screens = ScreenAudit.Measurements()
        for rider in riders { screens.merge(rider.audit.measurements) }
        var lost = 0
        for (tripID, changes) in confirmed {
            let shown = screens.trips[tripID]
            for change in changes where now.timeIntervalSince(change.at) > grace {
                if (shown?.version ?? 0) < change.version { lost += 1 }
            }
            if let final = changes.last, final.state == .completed, let shown, shown.state == .completed,
                shown.fare != final.fare
            {
                lost += 1
            }
        }
        var sent = (sends: 0, bytes: 0, points: 0)
        var onlineSeconds = 0.0
        let from = measuredFrom ?? now
        for driver in drivers {
            let stats = driver.sent
            let before = sentBeforeMeasuring[driver.id] ?? DriverLocationPipeline.Stats()
            sent.sends += stats.batches - before.batches
            sent.bytes += stats.bytes - before.bytes
            sent.points += stats.points - before.points
            if let since = driver.onlineSince {
                onlineSeconds += max(0, (driver.stoppedAt ?? now).timeIntervalSince(max(since, from)))
            }
        }
        let hours = max(onlineSeconds / 3600, 1e-9)
        let minuteChanges = screens.minuteChangesPerTrip
        let etaChanges = screens.etaChangesPerTrip
        var inProgress: [String: Int] = [:]
        for rider in riders {
            if let state = rider.model.trip?.state, state.isActive { inProgress[state.rawValue, default: 0] += 1 }
        }
        return SimulationReport(
            network: configuration.network.name, map: map,
            durationSeconds: now.timeIntervalSince(measuredFrom ?? now), warmupSeconds: configuration.warmup,
            drivers: configuration.drivers,
            riders: configuration.riders, freshnessSeconds: .init(screens.freshness),
            freshnessPerSecond: screens.freshness.perSecond(upTo: 20),
            freshnessNearTunnelsSeconds: .init(screens.freshnessNearTunnels),
            freshnessByState: Dictionary(
                uniqueKeysWithValues: screens.freshnessByState.map { ($0.key.rawValue, .init($0.value)) }),
            renderedLagSeconds: .init(screens.renderedLag), backwardMoves: screens.backwardMoves,
            jumpsOver50m: screens.jumpsOver50m, snaps: screens.snaps,
            unexplainedJumps: screens.unexplainedJumps, framesOffTruth: screens.framesOffTruth,
            offTruthFrames: screens.offTruthFrames,
            shareShowingPositionFromBeforeAssignment: screens.trackedFrames > 0
                ? Double(screens.framesShowingPositionFromBeforeAssignment) / Double(screens.trackedFrames) : 0,
            delayedBannerShare: screens.trackedFrames > 0
                ? Double(screens.delayedBannerFrames) / Double(screens.trackedFrames) : 0,
            etaChangesPerTrip: etaChanges.isEmpty ? 0 : Double(etaChanges.reduce(0, +)) / Double(etaChanges.count),
            maxEtaChangesOnATrip: etaChanges.max() ?? 0,
            minuteChangesPerTrip: minuteChanges.isEmpty
                ? 0 : Double(minuteChanges.reduce(0, +)) / Double(minuteChanges.count),
            maxMinuteChangesOnATrip: minuteChanges.max() ?? 0, tripEventsLost: lost,
            tripEventsDuplicated: screens.duplicatedEvents + report.versionRegressions,
            overclaims: screens.overclaims, overclaimedFrames: screens.overclaimedFrames,
            underclaims: screens.underclaims,
            trips: SimulationReport.Trips(
                requested: report.requested, completed: report.completed, cancelled: report.cancelled,
                noDriversFound: report.noDriversFound, requestFailures: report.requestFailures,
                completedWithFare: report.fares.count, meanFareMinor: report.meanFareMinor,
                currency: report.fares.first?.currency, meanPickupETASeconds: report.meanPickupETASeconds,
                medianPickupETASeconds: report.medianPickupETASeconds,
                medianSecondsToAssign: report.medianSecondsToAssign,
                faresMinor: report.fares.map(\.amountMinor).sorted(), inProgress: inProgress,
                pickupsOverdue: riders.filter { $0.pickupOverdue(at: now) }.count),
            faresAgainstTruth: Self.faresAgainstTruth(
                drivers.flatMap(\.completedTrips).filter { $0.at >= (measuredFrom ?? now) }),
            driverLinks: driverLinks(now: now), driversOnline: drivers.filter { $0.model.isOnline }.count,
            perDriverHour: SimulationReport.PerDriverHour(
                sends: Double(sent.sends) / hours, bytes: Double(sent.bytes) / hours,
                points: Double(sent.points) / hours),
            batteryPerDriverHour: batteryByPolicy(),
            appKills: report.appKills + drivers.map(\.kills).reduce(0, +))
    }

    /// Every driver's battery spent by policy in the measured window, per driver-hour; location off is left out.
    private func batteryByPolicy() -> [SimulationReport.BatteryByPolicy] {
        var total: [String: BatteryModel.Share] = [:]
        for driver in drivers {
            let before = batteryBeforeMeasuring[driver.id] ?? [:]
            for (policy, share) in driver.battery.byPolicy where policy != "off" {
                total[policy, default: BatteryModel.Share()].seconds += share.seconds - (before[policy]?.seconds ?? 0)
                total[policy, default: BatteryModel.Share()].percent += share.percent - (before[policy]?.percent ?? 0)
            }
        }
        return Self.batteryPerDriverHour(total)
    }

    /// Shares by policy as the report lists them: per driver-hour, most driver-hours first, none under a second.
    nonisolated static func batteryPerDriverHour(_ shares: [String: BatteryModel.Share])
        -> [SimulationReport.BatteryByPolicy]
    {
        shares.filter { $0.value.seconds >= 1 }.map {
            SimulationReport.BatteryByPolicy(
                policy: $0.key, driverHours: $0.value.seconds / 3600,
                percentPerHour: $0.value.percent / ($0.value.seconds / 3600))
        }.sorted { ($0.driverHours, $1.policy) > ($1.driverHours, $0.policy) }
    }

    private func driverLinks(now: Date) -> SimulationReport.DriverLinks {
        let down = drivers.map { $0.links.longestDown(at: now) }
        let withoutStream = drivers.map { $0.links.longestWithoutStream(at: now) }
        return SimulationReport.DriverLinks(
            longestDownSeconds: down.max() ?? 0, driversDownOver60s: down.filter { $0 > 60 }.count,
            longestWithoutStreamSeconds: withoutStream.max() ?? 0,
            driversWithoutStreamOver60s: withoutStream.filter { $0 > 60 }.count)
    }

    /// The fares charged against the standard tariff applied to what each car truly drove.
    nonisolated static func faresAgainstTruth(_ trips: [SimDriver.FareCheck]) -> SimulationReport.FaresAgainstTruth {
        let pricing = PricingTable.standard
        var truths: [Int] = []
        var differences: [Int] = []
        var atMinimum = 0
        var distanceErrors: [Double] = []
        var distances: [SimulationReport.ChargedDistance] = []
        for trip in trips {
            if let charged = trip.chargedMeters {
                distances.append(
                    SimulationReport.ChargedDistance(
                        tripID: trip.tripID, chargedMeters: charged, drivenMeters: trip.drivenMeters,
                        appKills: trip.appKills))
                // A trip that drove nowhere is judged by the metres charged: none is right.
                distanceErrors.append(
                    trip.drivenMeters > 0 ? abs(charged - trip.drivenMeters) / trip.drivenMeters : charged > 0 ? 1 : 0)
            }
            let truth =
                pricing.fare(for: .economy, distanceMeters: trip.drivenMeters, durationSeconds: trip.onTripSeconds)?
                .amountMinor ?? 0
            truths.append(truth)
            differences.append(abs(trip.fare.amountMinor - truth))
            if trip.fare.amountMinor == pricing.tariffs[.economy]?.minimumMinor { atMinimum += 1 }
        }
        func mean(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.reduce(0, +) / Double(values.count) }
        func mean(_ values: [Int]) -> Int? { values.isEmpty ? nil : values.reduce(0, +) / values.count }
        return SimulationReport.FaresAgainstTruth(
            trips: trips.count, atMinimumFare: atMinimum, meanDrivenMeters: mean(trips.map(\.drivenMeters)),
            meanOnTripSeconds: mean(trips.map(\.onTripSeconds)), meanChargedMinor: mean(trips.map(\.fare.amountMinor)),
            meanTruthMinor: mean(truths), largestDifferenceMinor: differences.max(),
            chargedDistanceJudged: distanceErrors.count,
            chargedDistanceOver3PercentOff: distanceErrors.filter { $0 > 0.03 }.count,
            largestChargedDistanceError: distanceErrors.max(), chargedDistances: distances)
    }

    private func finish() {
        finished = true
        for waiter in waiters { waiter.continuation.resume(returning: false) }
        waiters.removeAll()
    }
}
