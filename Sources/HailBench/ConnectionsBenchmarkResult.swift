import Foundation

/// What `hail bench connections` measured, printed as a table or as one JSON object.
public struct ConnectionsBenchmarkResult: Encodable, Sendable {
    /// Progress of the ramp, every tenth of the way.
    public struct Checkpoint: Encodable, Sendable {
        /// Connections open.
        public let connections: Int
        /// Seconds since the first connect.
        public let seconds: Double
        /// The server's resident memory then.
        public let serverRssBytes: Int
    }

    /// Always "connections".
    public let benchmark = "connections"
    /// Connections asked for.
    public let requested: Int
    /// Connections tried (the request, capped by the open-file limit).
    public let attempted: Int
    /// Connections that opened.
    public let connected: Int
    /// Of those, still open after the hold.
    public let stillOpen: Int
    /// Connections closed before the end, by close code and reason.
    public let closes: [String: Int]
    /// Connects that failed.
    public let failures: Int
    /// The first failure, verbatim.
    public let firstFailure: String?
    /// 127.0.0.x source addresses used.
    public let sourceAddresses: Int
    /// Seconds from the first connect to the last.
    public let connectSeconds: Double
    /// Connections opened per second.
    public let connectsPerSecond: Double
    /// Seconds all were held before the last reading.
    public let holdSeconds: Int
    /// The server's resident memory with no connection, bytes.
    public let serverIdleRssBytes: Int
    /// The server's resident memory holding them all, bytes.
    public let serverRssBytes: Int
    /// The server's peak resident memory, bytes.
    public let serverPeakRssBytes: Int
    /// (held - idle) / connected, bytes.
    public let serverRssBytesPerConnection: Int
    /// idle + 200,000 x per connection: what the design's peak would take at this rate, bytes.
    public let projectedServerRssBytesAt200k: Int
    /// True while the server was still running at the end.
    public let serverAlive: Bool
    /// The load generator's resident memory, bytes.
    public let clientRssBytes: Int
    /// The ramp.
    public let checkpoints: [Checkpoint]
    /// The open-file limit each process had.
    public let openFileLimit: Int
    /// Why fewer than requested were tried or opened; nil when nothing stopped the ramp.
    public let limitedBy: String?
    /// The 200,000-connection target: reached?
    public let reached200k: Bool
    /// The 2 GB target, on the projection: met?
    public let projectionUnder2GB: Bool
    /// The most server RSS one idle connection may cost (8,192 bytes, issue 38).
    public let targetBytesPerConnection = ConnectionsBenchmark.targetBytesPerConnection
    /// Whether `serverRssBytesPerConnection` is within it.
    public let perConnectionWithinTarget: Bool
    /// The machine.
    public let machine: BenchMachine

    /// Builds the result from the readings.
    init(
        requested: Int, attempted: Int, connected: Int, stillOpen: Int, closes: [String: Int], failures: Int,
        firstFailure: String?,
        sourceAddresses: Int, connectSeconds: Double, holdSeconds: Int, idleServer: ProcessUsage?,
        heldServer: ProcessUsage?, serverAlive: Bool, client: ProcessUsage?, checkpoints: [Checkpoint],
        openFileLimit: Int, limitedBy: String?, machine: BenchMachine
    ) {
        self.requested = requested
        self.attempted = attempted
        self.connected = connected
        self.stillOpen = stillOpen
        self.closes = closes
        self.failures = failures
        self.firstFailure = firstFailure
        self.sourceAddresses = sourceAddresses
        self.connectSeconds = connectSeconds.rounded(toPlaces: 2)
        connectsPerSecond = (Double(connected) / max(connectSeconds, 0.001)).rounded(toPlaces: 0)
        self.holdSeconds = holdSeconds
        serverIdleRssBytes = idleServer?.residentBytes ?? 0
        serverRssBytes = heldServer?.residentBytes ?? 0
        serverPeakRssBytes = heldServer?.peakResidentBytes ?? 0
        let perConnection = connected > 0 ? max(0, serverRssBytes - serverIdleRssBytes) / connected : 0
        serverRssBytesPerConnection = perConnection
        projectedServerRssBytesAt200k = serverIdleRssBytes + perConnection * ConnectionsBenchmark.designConnections
        self.serverAlive = serverAlive
        clientRssBytes = client?.residentBytes ?? 0
        self.checkpoints = checkpoints
        self.openFileLimit = openFileLimit
        self.limitedBy = limitedBy
        reached200k = connected >= ConnectionsBenchmark.designConnections
        projectionUnder2GB = projectedServerRssBytesAt200k < ConnectionsBenchmark.targetServerRSSBytes
        perConnectionWithinTarget = connected > 0 && perConnection <= ConnectionsBenchmark.targetBytesPerConnection
        self.machine = machine
    }

    /// The human-readable report.
    public var table: String {
        /// Bytes as MiB with one decimal.
        func mib(_ bytes: Int) -> String { (Double(bytes) / 1_048_576).fixed(1) + " MiB" }
        var table = BenchTable(
            title: "hail bench connections: \(connected) idle driver streams on a `hail server` child")
        table.add(
            "connections",
            "\(connected) of \(requested) asked (\(attempted) tried, \(failures) failed, \(stillOpen) "
                + "still open after \(holdSeconds) s) from \(sourceAddresses) source addresses")
        table.add("time to connect", "\(connectSeconds.fixed(2)) s (\(connectsPerSecond.fixed(0)) per second)")
        table.add(
            "server RSS",
            "\(mib(serverRssBytes)) holding them, \(mib(serverIdleRssBytes)) idle, peak \(mib(serverPeakRssBytes))")
        table.add(
            "per connection",
            "\(serverRssBytesPerConnection) bytes of server RSS ("
                + (perConnectionWithinTarget ? "within" : "over") + " the \(targetBytesPerConnection)-byte target)")
        let verdict =
            projectionUnder2GB
            ? "under the 2 GB target"
            : "over the 2 GB target by \(mib(projectedServerRssBytesAt200k - ConnectionsBenchmark.targetServerRSSBytes))"
        table.add("at 200,000", "\(mib(projectedServerRssBytesAt200k)) projected: \(verdict)")
        for checkpoint in checkpoints {
            table.add(
                "  ramp \(checkpoint.connections)",
                "\(checkpoint.seconds.fixed(2)) s, server \(mib(checkpoint.serverRssBytes))")
        }
        table.add("load generator", "\(mib(clientRssBytes)) RSS in this process")
        if let firstFailure { table.add("first failure", firstFailure) }
        if !closes.isEmpty {
            table.add(
                "closed early",
                closes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))
        }
        table.add(
            "200,000 target",
            reached200k
                ? "reached"
                : "NOT reached: \(connected) open, \(ConnectionsBenchmark.designConnections - connected) short")
        if let limitedBy { table.add("limited by", limitedBy) }
        if !serverAlive { table.add("server", "the server process had exited by the end") }
        table.add("machine", machine.summary)
        return table.text
    }
}
