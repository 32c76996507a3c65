import Foundation
import HailRoads
import HailSim

/// `hail sim`: a named scenario of the simulated city, run headless against a fresh server, with the
/// measured report written as JSON.
@MainActor
enum SimCommand {
    /// A named city: map, fleet, network and length.
    struct Scenario {
        var name: String
        var summary: String
        var drivers: Int
        var riders: Int
        var network: NetworkProfile
        var duration: TimeInterval
        /// nil: Monaco when the shared data is there, else the generated city.
        var generatedMap: Bool = false
    }

    static let scenarios: [Scenario] = [
        Scenario(
            name: "monaco-3g", summary: "Monaco, 200 drivers and 50 riders on patchy 3G for 120 s", drivers: 200,
            riders: 50, network: .patchy3G, duration: 120),
        Scenario(
            name: "monaco-4g", summary: "Monaco, 200 drivers and 50 riders on good 4G for 120 s", drivers: 200,
            riders: 50, network: .good4G, duration: 120),
        Scenario(
            name: "dead-zones", summary: "Monaco, 100 drivers and 30 riders, 20 s dead zones, for 300 s", drivers: 100,
            riders: 30, network: .deadZones, duration: 300),
        Scenario(
            name: "stalls", summary: "Monaco, 100 drivers and 30 riders, sockets stalling 12 s, for 300 s",
            drivers: 100, riders: 30, network: .stallingSocket, duration: 300),
        Scenario(
            name: "chaos", summary: "Monaco, 100 drivers and 30 riders, 3G, dead zones, stalls, app kills, for 300 s",
            drivers: 100, riders: 30, network: .chaos, duration: 300),
        Scenario(
            name: "cellular",
            summary: "Monaco, 200 drivers and 50 riders on measured cellular (Uber, 2019) for 120 s", drivers: 200,
            riders: 50, network: .cellular, duration: 120),
        Scenario(
            name: "generated", summary: "the generated city, 30 drivers and 10 riders on loopback for 60 s",
            drivers: 30, riders: 10, network: .perfect, duration: 60, generatedMap: true),
    ]

    static var usage: String {
        let names = scenarios.map { "  \($0.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \($0.summary)" }
        return """
            usage: hail sim --scenario NAME [--report report.json] [--database sim.db] [--duration S] [--warmup S]
                           [--seed 1] [--speed 1] [--inject PERCENT]

            Runs a simulated city headless against a fresh server on loopback (a throwaway database) and
            prints the measured report: the age of the position on each rider's screen against where the
            car truly was (p50, p99), whether each frame's words claimed more than that (overclaims) or less,
            backward moves, jumps over 50 m, trip events lost or doubled, ETA changes (the arrival the
            minutes promise moving; a countdown is none) and every change of the minutes on screen, each
            completed trip's charged distance against the distance driven, sends and bytes per driver-hour,
            and the trips. --report writes it as JSON (report.html: the
            report with its plots, opening offline, and report.json beside it). --database keeps the
            server's SQLite database (trips, events, each trip's stored fixes) for reading a trip again.
            --warmup S runs the city S seconds before measuring it. --inject P gives P % of the trips
            under way (0-50, seeded) a wrong turn kept for 300 m and P % a stop of 220 s, and the report
            scores the server's trip alerts against them: detected, missed, time to detect, and false
            alarms on the trips where nothing was injected (scored without --inject too).

            scenarios:
            \(names.joined(separator: "\n"))
            """
    }

    static func run(_ arguments: [String]) async throws(UsageError) {
        let args = try Arguments(
            arguments,
            options: [
                "--scenario", "--report", "--database", "--duration", "--seed", "--speed", "--warmup", "--inject",
            ], flags: [])
        guard let name = args["--scenario"] else { throw UsageError("--scenario is required") }
        guard let scenario = scenarios.first(where: { $0.name == name }) else {
            throw UsageError(
                "unknown scenario '\(name)'; choose one of \(scenarios.map(\.name).joined(separator: ", "))")
        }
        var city = CityConfiguration()
        city.drivers = scenario.drivers
        city.riders = scenario.riders
        city.network = scenario.network
        city.seed = UInt64(try args.integer("--seed", default: 1, in: 0...Int.max))
        city.speedFactor = Double(try args.integer("--speed", default: 1, in: 1...2))
        let duration = try args.integer("--duration", default: Int(scenario.duration), in: 1...86_400)
        city.warmup = TimeInterval(try args.integer("--warmup", default: 0, in: 0...86_400))
        let inject = try args.integer("--inject", default: 0, in: 0...50)
        if inject > 0 { city.injection = SafetyInjection(share: Double(inject) / 100) }
        let (graph, mapName) =
            scenario.generatedMap ? (GeneratedCity(seed: 1).graph, "the generated city") : try DemoCommand.loadMap(nil)
        _ = try await SimRun(
            city: city, graph: graph, mapName: mapName, duration: TimeInterval(duration), reportPath: args["--report"],
            keptDatabasePath: args["--database"]
        ).run()
    }
}
