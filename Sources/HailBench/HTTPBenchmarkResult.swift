import Foundation
import HailTime

/// What `hail bench http` measured, printed as a table or as one JSON object.
public struct HTTPBenchmarkResult: Encodable, Sendable {
    /// Always "http".
    public let benchmark = "http"
    /// The request repeated.
    public let route: String
    /// Concurrent keep-alive connections.
    public let connections: Int
    /// Seconds asked for.
    public let seconds: Int
    /// Seconds actually measured (until the last in-flight request returned).
    public let elapsedSeconds: Double
    /// Requests answered (any status).
    public let requests: Int
    /// Answered requests per second.
    public let requestsPerSecond: Double
    /// Requests answered with 2xx per second.
    public let okPerSecond: Double
    /// Latency of answered requests.
    public let latency: LatencySummary
    /// Answered requests by status code.
    public let statuses: [String: Int]
    /// Requests with no answer, by reason.
    public let failures: [String: Int]
    /// Connections opened (equal to `connections` when keep-alive held).
    public let connectionsOpened: Int
    /// The server measured.
    public let server: String
    /// Process CPU over the run in percent of one core (server and load generator together when in-process).
    public let processCPUPercent: Double?
    /// Resident memory at the end, MiB.
    public let rssMiB: Double?
    /// Latency of an ordinary kept-alive client (URLSession, one connection, one request after another), after
    /// the run; nil when not measured.
    public let keptAliveClient: LatencySummary?
    /// Requests of that client that got no answer.
    public let keptAliveClientFailures: Int
    /// The machine and build.
    public let machine: BenchMachine
    /// What limits the figure.
    public let note: String

    /// Builds the result from the merged tallies.
    init(
        settings: HTTPBenchmark, target: BenchTarget, tally: HTTPWorkerTally, elapsed: Duration,
        before: ProcessUsage?, after: ProcessUsage?, machine: BenchMachine,
        keptAlive: (latencies: [UInt32], failures: Int)? = nil
    ) {
        keptAliveClient = keptAlive.map { LatencySummary(microseconds: $0.latencies) }
        keptAliveClientFailures = keptAlive?.failures ?? 0
        let wall = elapsed.timeInterval
        route = settings.route.summary
        connections = settings.connections
        seconds = settings.seconds
        elapsedSeconds = wall.rounded(toPlaces: 3)
        requests = tally.latencies.count
        requestsPerSecond = (Double(requests) / max(wall, 1e-9)).rounded(toPlaces: 1)
        let ok = tally.statuses.filter { (200..<300).contains($0.key) }.values.reduce(0, +)
        okPerSecond = (Double(ok) / max(wall, 1e-9)).rounded(toPlaces: 1)
        latency = LatencySummary(microseconds: tally.latencies)
        statuses = Dictionary(uniqueKeysWithValues: tally.statuses.map { (String($0.key), $0.value) })
        failures = tally.failures
        connectionsOpened = tally.connections
        server = target.label
        if let before, let after {
            processCPUPercent = after.cpuPercent(since: before, wallSeconds: wall).rounded(toPlaces: 1)
            rssMiB = (Double(after.residentBytes) / 1_048_576).rounded(toPlaces: 1)
        } else {
            processCPUPercent = nil
            rssMiB = nil
        }
        self.machine = machine
        note =
            target.inProcess
            ? "server and load generator share this process and its \(machine.cores) cores; CPU% is both together"
            : "load generator only in this process; CPU% is the load generator's"
    }

    /// The human-readable report.
    public var table: String {
        var table = BenchTable(title: "hail bench http: \(route), \(connections) keep-alive connections")
        table.add("requests/s", "\(requestsPerSecond.fixed(0))  (2xx: \(okPerSecond.fixed(0))/s)")
        table.add("requests", "\(requests) in \(elapsedSeconds.fixed(2)) s")
        table.add(
            "latency",
            "p50 \(latency.p50Ms.fixed(3)) ms, p99 \(latency.p99Ms.fixed(3)) ms, max \(latency.maxMs.fixed(1)) ms")
        let statusText = statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        table.add("by status", statusText.isEmpty ? "none" : statusText)
        let failureText = failures.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        table.add("no answer", failureText.isEmpty ? "0" : failureText)
        table.add("connections opened", String(connectionsOpened))
        if let keptAliveClient {
            var text =
                "p50 \(keptAliveClient.p50Ms.fixed(3)) ms, p99 \(keptAliveClient.p99Ms.fixed(3)) ms over "
                + "\(keptAliveClient.count) requests"
            if keptAliveClientFailures > 0 { text += ", \(keptAliveClientFailures) unanswered" }
            table.add("kept-alive client", text + " (URLSession, one connection, one request at a time)")
        }
        if let processCPUPercent { table.add("process CPU", "\(processCPUPercent.fixed(0))% of one core") }
        if let rssMiB { table.add("process RSS", "\(rssMiB.fixed(1)) MiB") }
        table.add("server", server)
        table.add("machine", machine.summary)
        table.add("note", note)
        return table.text
    }
}
