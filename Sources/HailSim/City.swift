import Foundation
import HailClient
import HailCore
import HailDriver
import HailRoads
import HailServer

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
    private let timeline: DriverTimeline
    private var waiters: [(condition: (CityReport) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = []
    private var finished = false

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
        self.timeline = DriverTimeline(clock: clock, origin: origin)
    }

    /// Runs every driver and rider until the calling task is cancelled; drivers go offline on the way out.
    public func run() async {
        defer { finish() }
        let connector: SocketConnector
        do { connector = try SocketConnector() } catch { return }
        let world = CityWorld(
            server: server, mint: mint, router: RoadRouter(graph: graph), spots: CityWorld.spots(of: graph),
            clock: clock, timeline: timeline, connector: connector,
            configuration: configuration)
        guard !world.spots.isEmpty else { return }
        var random = SimRandom(seed: configuration.seed)
        let drivers = (0..<configuration.drivers).map {
            SimDriver(id: "sim-driver-\($0 + 1)", world: world, random: random.split())
        }
        let riders = (0..<configuration.riders).map {
            SimRider(id: "sim-rider-\($0 + 1)", world: world, random: random.split()) { [weak self] outcome in
                self?.record(outcome)
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for driver in drivers { group.addTask { await driver.run() } }
            for rider in riders { group.addTask { await rider.run() } }
        }
        await connector.shutdown()
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
        switch outcome {
        case .requested: report.requested += 1
        case .requestFailed: report.requestFailures += 1
        case .pickupETA(let seconds): report.pickupETAs.append(seconds)
        case .completed(let fare):
            report.completed += 1
            if let fare { report.fares.append(fare) }
        case .cancelled: report.cancelled += 1
        case .noDriversFound: report.noDriversFound += 1
        case .versionWentBack: report.versionRegressions += 1
        }
        let current = report
        waiters.removeAll { waiter in
            guard waiter.condition(current) else { return false }
            waiter.continuation.resume(returning: true)
            return true
        }
    }

    private func finish() {
        finished = true
        for waiter in waiters { waiter.continuation.resume(returning: false) }
        waiters.removeAll()
    }
}
