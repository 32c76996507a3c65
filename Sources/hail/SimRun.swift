import Foundation
import HailCore
import HailNet
import HailRoads
import HailServer
import HailSim
import HailTime

/// One headless run of the simulated city: a fresh server on loopback with its own throwaway database,
/// the city on it for a fixed time, then the measured report. Shared by `hail sim` and
/// `hail demo --headless`.
@MainActor
struct SimRun {
    var city: CityConfiguration
    var graph: RoadGraph
    var mapName: String
    var duration: TimeInterval
    var reportPath: String?
    /// Where to keep the server's database (its trips, their events and position histories) after the run, so a
    /// trip the report lists can be read again; nil throws it away.
    var keptDatabasePath: String? = nil
    /// Where the city's rides push (APNs, from the `--apns-*` flags), or nil for no pushes.
    var pushSender: PushSenderFactory? = nil

    /// Runs the city, prints progress every 10 s and the report at the end, and writes the JSON report.
    func run() async throws(UsageError) -> SimulationReport {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hail-sim-\(UUID())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        if let keptDatabasePath, FileManager.default.fileExists(atPath: keptDatabasePath) {
            throw UsageError("--database: \(keptDatabasePath) already exists; name a new file")
        }
        var options = BackendServer.Options()
        options.port = 0
        options.databasePath = keptDatabasePath ?? directory.appendingPathComponent("sim.db").path
        options.secret = SecureRandom.bytes(32)
        options.log = nil
        options.configuration.roads = .loaded(RoadNetwork(graph: graph))
        options.configuration.pushSender = pushSender
        // Every simulated app shares one loopback address: limits per address would throttle the whole
        // city as if it were one abusive client. Limits per token (per app) stay.
        options.configuration.rateLimits.requestsPerAddress = nil
        options.configuration.rateLimits.connectionsPerAddress = nil
        let server: BackendServer
        do {
            server = try await BackendServer.start(options)
        } catch {
            throw UsageError.failed("the server could not start: \(error)")
        }
        let tokens = TokenAuthority(authenticator: HMACAuthenticator(secret: options.secret))
        let minter: City.TokenMinter = { role, subject in
            let now = Int64(Date().timeIntervalSince1970)
            return tokens.mint(AccessToken(role: role, sub: subject, exp: now + 86_400, iat: now))
        }
        guard let url = URL(string: "http://127.0.0.1:\(server.port)") else { throw UsageError("bad server address") }
        let simulation = City(
            configuration: city, server: url, tokens: minter, graph: graph, clock: ContinuousClock(), origin: Date())
        let warmup = city.warmup > 0 ? " after a \(Int(city.warmup)) s warm-up" : ""
        say(
            "Simulating \(city.drivers) drivers and \(city.riders) riders on \(mapName) over \(city.network.name) "
                + "for \(Int(duration)) s\(warmup) (server on port \(server.port)).")
        let cityTask = Task { await simulation.run() }
        let started = ContinuousClock.now
        let warmupSeconds = max(0, city.warmup)
        let total = warmupSeconds + duration
        // A sample of the time line every 2 s of the measured window (the HTML report plots it); a progress
        // line every 10 s.
        var timeline: [ReportSample] = []
        var printed = started
        while ContinuousClock.now - started < .seconds(total) {
            let left = .seconds(total) - (ContinuousClock.now - started)
            do { try await Task.sleep(for: min(.seconds(2), left)) } catch { break }
            let now = ContinuousClock.now
            let report = simulation.measuredReport(map: mapName)
            let measured = (now - started).timeInterval - warmupSeconds
            if measured >= 0 { timeline.append(ReportSample(report, at: measured)) }
            if now - printed >= .seconds(10) {
                printed = now
                say(progressLine(report, elapsed: now - started))
            }
        }
        var report = simulation.measuredReport(map: mapName)
        report.safety = await Self.safetyScore(simulation, services: server.services)
        say(report.summary)
        if let reportPath {
            try Self.write(report, timeline: timeline, to: reportPath)
        }
        // The city is not cancelled: cancelling thousands of in-flight URLSession requests trips a
        // FoundationNetworking assertion on Linux. The process ends with the command instead.
        await server.shutdown()
        if let keptDatabasePath { say("Database kept at \(keptDatabasePath).") }
        _ = cityTask
        return report
    }

    /// The server's trip alerts over the whole run (warm-up included), read from the event logs of the trips the
    /// drivers saw under way, scored against what the city injected; and the pickup position check's refusals: a
    /// simulated car taps "arrived" and "started" only where it truly is at the pickup, so each is a false refusal.
    static func safetyScore(_ city: City, services: ServerServices) async -> SafetyScore {
        let trips = city.tripsUnderWay
        var alerts: [SafetyScore.RaisedAlert] = []
        for tripID in trips.sorted() {
            let events = (try? await services.trips.events(tripID: tripID)) ?? []
            for event in events where event.intent == "tripAlert" {
                guard let kind = event.detail.flatMap(TripAlertKind.init(rawValue:)) else { continue }
                alerts.append(SafetyScore.RaisedAlert(tripID: tripID, kind: kind, at: event.at))
            }
        }
        let registry = services.metrics.registry
        let refused = { (kind: String) in
            Int(
                registry.total(
                    "hail_proposals_refused_total", matching: ["kind": kind, "reason": "too_far_from_pickup"]))
        }
        return SafetyScore(
            injections: city.injections, alerts: alerts, tripsUnderWay: trips, now: Date(),
            arrivedRefused: refused("arrived"), startedRefused: refused("started"))
    }

    /// Writes the report: JSON at `path`, or for a path ending in `.html` the page with its plots there and
    /// the JSON beside it (`report.html` and `report.json`).
    static func write(_ report: SimulationReport, timeline: [ReportSample], to path: String) throws(UsageError) {
        let url = URL(fileURLWithPath: path)
        let isPage = url.pathExtension.lowercased() == "html"
        let json = isPage ? url.deletingPathExtension().appendingPathExtension("json") : url
        do {
            try report.json().write(to: json)
            if isPage {
                try Data(ReportPage(report: report, timeline: timeline).html.utf8).write(to: url)
            }
        } catch {
            throw UsageError("--report: cannot write \(path): \(error)")
        }
        say(isPage ? "Report written to \(url.path) and \(json.path)." : "Report written to \(path).")
    }

    private func progressLine(_ report: SimulationReport, elapsed: Duration) -> String {
        let seconds = elapsed.components.seconds
        guard seconds >= Int64(city.warmup) else { return "\(seconds) s: warming up; \(report.progress)" }
        return "\(seconds) s: \(report.progress)"
    }
}
