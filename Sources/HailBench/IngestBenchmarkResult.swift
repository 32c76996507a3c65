import Foundation
import HailScale

/// What `hail bench ingest` measured, printed as a table or as one JSON object.
public struct IngestBenchmarkResult: Encodable, Sendable {
    /// The riders watching drivers on trips.
    public struct Riders: Encodable, Sendable {
        /// Trips asked for.
        public let asked: Int
        /// Trips accepted with the rider's stream open.
        public let watching: Int
        /// Why the others failed (first few).
        public let setupFailures: [String]
        /// `driverMoved` frames the riders received.
        public let driverMovedReceived: Int
        /// Of those, with a seq no watched driver sent (should be 0).
        public let unmatched: Int
        /// Driver send to rider receive, for batches sent and received within the window.
        public let latency: LatencySummary

        /// Summarizes the riders' books.
        init(
            asked: Int, watching: Int, setupFailures: [String],
            books: (latencies: [UInt32], received: Int, unmatched: Int)
        ) {
            self.asked = asked
            self.watching = watching
            self.setupFailures = setupFailures
            driverMovedReceived = books.received
            unmatched = books.unmatched
            latency = LatencySummary(microseconds: books.latencies)
        }
    }

    /// What the shared backends of the scaled mode did over the window, from their own counters.
    public struct Backends: Encodable, Sendable {
        /// Script calls per batch acknowledged in the window (`evalsha` and the like): how many scripts a batch
        /// costs Redis, whatever they run inside.
        public let redisScriptCallsPerBatch: Double
        /// Calls per batch counted by `INFO commandstats`, the commands scripts ran included.
        public let redisCallsPerBatch: Double
        /// `INFO commandstats` calls over the window, by command.
        public let redisCalls: [String: Int]
        /// Transactions PostgreSQL committed per second over the window (`pg_stat_database.xact_commit`).
        public let postgresTransactionsPerSecond: Double
        /// Batches' ingest writes per pipelined round trip to Redis, from the nodes' own
        /// `hail_redis_ingest_*` counters over the whole run; nil when a node's `/metrics` could not be read.
        public var batchesPerRoundTrip: Double?

        /// Per batch and per second from the counters' change over the window.
        init(_ counters: BackendCounters, batches: Int, seconds: Double) {
            let perBatch = { (count: Int) in batches > 0 ? (Double(count) / Double(batches)).rounded(toPlaces: 2) : 0 }
            redisScriptCallsPerBatch = perBatch(counters.redisScriptCalls)
            redisCallsPerBatch = perBatch(counters.redisCalls.values.reduce(0, +))
            redisCalls = counters.redisCalls
            postgresTransactionsPerSecond = (Double(counters.postgresCommits) / seconds).rounded(toPlaces: 1)
        }
    }

    /// Always "ingest".
    public let benchmark = "ingest"
    /// `json` or `binary`.
    public let encoding: String
    /// Driver connections asked for.
    public let connections: Int
    /// Driver streams that opened.
    public let connected: Int
    /// Why the others failed (first few).
    public let connectFailures: [String]
    /// Source addresses the connections were spread over (empty: the kernel's choice).
    public let sourceAddresses: [String]
    /// `every N ms` (open loop) or `saturate, window N` (closed loop).
    public let pacing: String
    /// Fixes per batch.
    public let pointsPerBatch: Int
    /// Length of the measured window, seconds.
    public let seconds: Int
    /// Fixes acknowledged within the window, per second: the headline figure.
    public let ackedUpdatesPerSecond: Double
    /// Batches acknowledged within the window, per second.
    public let ackedBatchesPerSecond: Double
    /// Batches and fixes written, in total.
    public let sentBatches: Int
    /// Fixes written, in total.
    public let sentPoints: Int
    /// Batches acknowledged, window and grace together.
    public let ackedBatches: Int
    /// Batches never acknowledged (connection lost or grace over).
    public let droppedBatches: Int
    /// WebSocket messages the client's socket layer wrote (batches actually on the wire).
    public let clientMessagesWritten: Int
    /// WebSocket messages the client's socket layer read (hellos and acks).
    public let clientMessagesRead: Int
    /// Send-to-ack latency per batch.
    public let latency: LatencySummary
    /// The server's `hail_location_updates_total` added during the run, by result (accepted, or why dropped).
    public let serverLocationUpdates: [String: Int]?
    /// The server measured.
    public let server: String
    /// Process CPU over the window in percent of one core (server and load generator together in-process).
    public let processCPUPercent: Double?
    /// Resident memory at the end of the window, MiB.
    public let rssMiB: Double?
    /// Highest resident memory of the process, MiB.
    public let peakRssMiB: Double?
    /// The headline: acknowledged fixes per second times the share of fixes the server's filter accepted.
    public let updatesPerSecond: Double
    /// The riders watching trips, when any.
    public let riders: Riders?
    /// The issue's latency in ms (`p50`, `p99`, `p999`, `max`): driver send to rider receive when riders
    /// watch, else driver send to ack (`latencyMeasured` says which).
    public let latencyMs: [String: Double]
    /// `driverSendToRiderReceive` or `driverSendToAck`.
    public let latencyMeasured: String
    /// The server children's CPU over the window in percent of one core, every node's together; nil when the
    /// server is in-process or remote (then `processCPUPercent` holds server and load generator together).
    public let serverCpuPercent: Double?
    /// The server's share of the CPU the whole run used (server / (server + load generator)).
    public let serverCpuShare: Double?
    /// The server's CPU microseconds per batch acknowledged in the window (from its /proc/PID/stat).
    public let serverCpuMicrosPerBatch: Double?
    /// The load generator's own CPU microseconds per batch acknowledged in the window, beside the server's:
    /// a figure near the server's would mean the generator, not the server, limits the run.
    public let clientCpuMicrosPerBatch: Double?
    /// The server children's resident memory at the end of the window, bytes, every node's together.
    public let serverRssBytes: Int?
    /// Nodes measured: 1, or more in the scaled mode (drivers on every node, each rider on another node).
    public let nodes: Int
    /// Each node's CPU over the window in percent of one core, in node order (scaled mode with 2 or more).
    public let nodeCpuPercent: [Double]?
    /// Each node's resident memory at the end of the window, bytes (scaled mode with 2 or more).
    public let nodeRssBytes: [Int]?
    /// Redis and PostgreSQL work over the window (scaled mode).
    public let backends: Backends?
    /// Fixes not accepted: batches never acked, by reason, plus the server's own drops by reason.
    public let dropped: [String: Int]
    /// The machine and build.
    public let machine: BenchMachine
    /// What limits the figure.
    public let note: String

    /// Builds the result from the merged books.
    init(
        settings: IngestBenchmark, target: BenchTarget, connected: Int, connectFailures: [String],
        sourceAddresses: [String], tally: AckLedger.Tally, wire: (written: Int, read: Int),
        serverCounts: [String: Int]?, before: ProcessUsage?,
        after: ProcessUsage?, nodes nodeUsage: [(before: ProcessUsage?, after: ProcessUsage?)] = [],
        backends: BackendCounters? = nil, ingestRounds: (roundTrips: Int, writes: Int)? = nil, riders: Riders? = nil,
        machine: BenchMachine
    ) {
        encoding = settings.binary ? "binary" : "json"
        connections = settings.connections
        self.connected = connected
        self.connectFailures = Array(connectFailures.prefix(5))
        self.sourceAddresses = sourceAddresses
        switch settings.pacing {
        case .interval(let milliseconds): pacing = "one batch every \(milliseconds) ms per driver"
        case .saturate(let window): pacing = "saturate: next batch on each ack, \(window) in flight per driver"
        }
        pointsPerBatch = settings.pointsPerBatch
        seconds = settings.seconds
        let wall = Double(settings.seconds)
        ackedUpdatesPerSecond = (Double(tally.ackedPointsInWindow) / wall).rounded(toPlaces: 1)
        ackedBatchesPerSecond = (Double(tally.ackedBatchesInWindow) / wall).rounded(toPlaces: 1)
        sentBatches = tally.sentBatches
        sentPoints = tally.sentPoints
        ackedBatches = tally.ackedBatches
        droppedBatches = tally.unacked
        clientMessagesWritten = wire.written
        clientMessagesRead = wire.read
        latency = LatencySummary(microseconds: tally.latencies)
        serverLocationUpdates = serverCounts
        server = target.label
        if let before, let after {
            processCPUPercent = after.cpuPercent(since: before, wallSeconds: wall).rounded(toPlaces: 1)
            rssMiB = (Double(after.residentBytes) / 1_048_576).rounded(toPlaces: 1)
            peakRssMiB = (Double(after.peakResidentBytes) / 1_048_576).rounded(toPlaces: 1)
        } else {
            processCPUPercent = nil
            rssMiB = nil
            peakRssMiB = nil
        }
        // Acknowledged is not accepted: the ack covers a batch whose fixes the filter may have dropped.
        let counted = (serverCounts ?? [:]).values.reduce(0, +)
        let acceptedShare = counted > 0 ? Double(serverCounts?["accepted"] ?? 0) / Double(counted) : 1
        updatesPerSecond = (ackedUpdatesPerSecond * acceptedShare).rounded(toPlaces: 1)
        self.riders = riders
        nodes = max(1, nodeUsage.count)
        // The children's figures only when every node could be read, so a total is never part of the nodes.
        let measured = nodeUsage.compactMap { usage in
            usage.before.flatMap { before in usage.after.map { (before, $0) } }
        }
        let children = measured.count == nodeUsage.count && !measured.isEmpty ? measured : []
        if children.count > 1 {
            nodeCpuPercent = children.map { $1.cpuPercent(since: $0, wallSeconds: wall).rounded(toPlaces: 1) }
            nodeRssBytes = children.map { $1.residentBytes }
        } else {
            nodeCpuPercent = nil
            nodeRssBytes = nil
        }
        var shared = backends.map { Backends($0, batches: tally.ackedBatchesInWindow, seconds: wall) }
        if let ingestRounds, ingestRounds.roundTrips > 0 {
            shared?.batchesPerRoundTrip = (Double(ingestRounds.writes) / Double(ingestRounds.roundTrips)).rounded(
                toPlaces: 2)
        }
        self.backends = shared
        let headline = (riders?.latency.count ?? 0) > 0 ? riders!.latency : latency
        latencyMeasured = (riders?.latency.count ?? 0) > 0 ? "driverSendToRiderReceive" : "driverSendToAck"
        latencyMs = ["p50": headline.p50Ms, "p99": headline.p99Ms, "p999": headline.p999Ms, "max": headline.maxMs]
        /// CPU microseconds per batch acknowledged in the window, between two readings.
        func microsPerBatch(_ from: ProcessUsage?, _ to: ProcessUsage?) -> Double? {
            guard let from, let to, tally.ackedBatchesInWindow > 0 else { return nil }
            return ((to.cpuSeconds - from.cpuSeconds) * 1e6 / Double(tally.ackedBatchesInWindow)).rounded(toPlaces: 2)
        }
        clientCpuMicrosPerBatch = microsPerBatch(before, after)
        if !children.isEmpty {
            let serverCPU = children.reduce(0) { $0 + $1.1.cpuPercent(since: $1.0, wallSeconds: wall) }
            serverCpuMicrosPerBatch =
                tally.ackedBatchesInWindow > 0
                ? (children.reduce(0) { $0 + $1.1.cpuSeconds - $1.0.cpuSeconds } * 1e6
                    / Double(tally.ackedBatchesInWindow)).rounded(toPlaces: 2) : nil
            serverCpuPercent = serverCPU.rounded(toPlaces: 1)
            serverRssBytes = children.reduce(0) { $0 + $1.1.residentBytes }
            if let generator = processCPUPercent, serverCPU + generator > 0 {
                serverCpuShare = (serverCPU / (serverCPU + generator)).rounded(toPlaces: 3)
            } else {
                serverCpuShare = nil
            }
        } else {
            serverCpuMicrosPerBatch = nil
            serverCpuPercent = nil
            serverRssBytes = target.inProcess ? (after?.residentBytes) : nil
            serverCpuShare = nil
        }
        var dropped = ["batchesNeverAcked": tally.unacked]
        for (reason, count) in serverCounts ?? [:] where reason != "accepted" { dropped["server:" + reason] = count }
        self.dropped = dropped
        self.machine = machine
        note =
            children.count > 1
            ? "the servers are \(children.count) `hail server` child processes on one PostgreSQL and Redis: server "
                + "CPU and RSS are theirs together (per node in nodeCpuPercent and nodeRssBytes; Redis's and "
                + "PostgreSQL's own CPU is not in them); process CPU and RSS are the load generator's"
            : !children.isEmpty
                ? "the server is a `hail server` child process: server CPU and RSS are its own; process CPU and RSS "
                    + "are the load generator's"
                : target.inProcess
                    ? "server and load generator (\(connected) WebSocket clients) share this process and its "
                        + "\(machine.cores) cores; CPU% and RSS are both together"
                    : "CPU% and RSS are the load generator's; read the server's on its host"
    }

    /// The human-readable report.
    public var table: String {
        var table = BenchTable(
            title: "hail bench ingest: \(connected) drivers, \(encoding) frames, \(pointsPerBatch) fixes per batch")
        if updatesPerSecond != ackedUpdatesPerSecond {
            table.add(
                "accepted updates/s", "\(updatesPerSecond.fixed(0))  (the rest were acked but dropped by the server)")
        }
        table.add("acked updates/s", "\(ackedUpdatesPerSecond.fixed(0))  (\(ackedBatchesPerSecond.fixed(0)) batches/s)")
        table.add("pacing", pacing)
        table.add(
            "send-to-ack",
            "p50 \(latency.p50Ms.fixed(2)) ms, p99 \(latency.p99Ms.fixed(2)) ms, p99.9 \(latency.p999Ms.fixed(2)) ms, max \(latency.maxMs.fixed(1)) ms"
        )
        if let riders {
            table.add(
                "driver to rider",
                "p50 \(riders.latency.p50Ms.fixed(2)) ms, p99 \(riders.latency.p99Ms.fixed(2)) ms, p99.9 "
                    + "\(riders.latency.p999Ms.fixed(2)) ms, max \(riders.latency.maxMs.fixed(1)) ms "
                    + "(\(riders.latency.count) positions in the window)")
            table.add(
                "riders",
                "\(riders.watching) of \(riders.asked) trips watched, \(riders.driverMovedReceived) driverMoved received"
                    + (riders.unmatched > 0 ? ", \(riders.unmatched) with no matching send" : "")
                    + (riders.setupFailures.first.map { "; first setup failure: \($0)" } ?? ""))
        }
        table.add("sent", "\(sentBatches) batches, \(sentPoints) fixes in \(seconds) s")
        table.add("acked", "\(ackedBatches) batches")
        table.add("dropped", "\(droppedBatches) batches not acked")
        table.add(
            "client wire", "\(clientMessagesWritten) messages written, \(clientMessagesRead) read (hellos and acks)")
        if let serverLocationUpdates {
            let text = serverLocationUpdates.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            table.add("server counted", text.isEmpty ? "nothing" : text.joined(separator: ", "))
        }
        let failed = connections - connected
        table.add(
            "connections",
            "\(connected) of \(connections) open"
                + (sourceAddresses.isEmpty ? "" : " from \(sourceAddresses.count) source addresses")
                + (failed > 0 ? "; first failure: \(connectFailures.first ?? "?")" : ""))
        if let serverCpuPercent {
            table.add(
                "server CPU",
                "\(serverCpuPercent.fixed(0))% of one core (\(((serverCpuShare ?? 0) * 100).fixed(0))% of the CPU the run used)"
            )
        }
        if let serverRssBytes, serverCpuPercent != nil {
            table.add("server RSS", "\((Double(serverRssBytes) / 1_048_576).fixed(1)) MiB")
        }
        if let nodeCpuPercent, let nodeRssBytes {
            table.add(
                "nodes",
                zip(nodeCpuPercent, nodeRssBytes).enumerated().map { index, node in
                    "\(index + 1): \(node.0.fixed(0))% CPU, \((Double(node.1) / 1_048_576).fixed(0)) MiB"
                }.joined(separator: "; ") + " (`hail server` children on one PostgreSQL and Redis)")
        }
        if let backends {
            let busiest = backends.redisCalls.sorted { $0.value > $1.value }.prefix(6).map { "\($0.key) \($0.value)" }
            table.add(
                "Redis per batch",
                "\(backends.redisScriptCallsPerBatch.fixed(2)) script calls, \(backends.redisCallsPerBatch.fixed(2)) "
                    + "commands with those the scripts ran (\(busiest.joined(separator: ", ")))"
                    + (backends.batchesPerRoundTrip.map { "; \($0.fixed(1)) batches per round trip" } ?? ""))
            table.add("PostgreSQL", "\(backends.postgresTransactionsPerSecond.fixed(0)) transactions/s committed")
        }
        if let processCPUPercent { table.add("process CPU", "\(processCPUPercent.fixed(0))% of one core") }
        if let serverCpuMicrosPerBatch {
            table.add(
                "CPU per batch",
                "server \(serverCpuMicrosPerBatch.fixed(1)) us"
                    + (clientCpuMicrosPerBatch.map { ", load generator \($0.fixed(1)) us" } ?? ""))
        }
        if let rssMiB, let peakRssMiB {
            table.add("process RSS", "\(rssMiB.fixed(1)) MiB (peak \(peakRssMiB.fixed(1)))")
        }
        table.add("server", server)
        table.add("machine", machine.summary)
        table.add("note", note)
        return table.text
    }
}
