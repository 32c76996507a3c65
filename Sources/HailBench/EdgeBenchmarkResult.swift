import Foundation

/// What `hail bench edge` measured: wrk's figures for nginx's fixed 200 and for each Hail route, each as a ratio
/// to nginx's requests/s.
public struct EdgeBenchmarkResult: Encodable, Sendable {
    /// One target wrk ran against.
    public struct Row: Encodable, Sendable {
        /// `nginx`, `healthz`, `estimates` or `activeTrip`.
        public let name: String
        /// The request repeated.
        public let request: String
        /// The status one request got just before the run (nil: no answer).
        public let answer: Int?
        /// What wrk printed.
        public let figures: WrkFigures
        /// `hail server`'s CPU over the run in percent of one core (nil for nginx).
        public let serverCPUPercent: Double?
        /// Each of the server's event loop threads' CPU over the run, in percent of one core, in loop order (nil for
        /// nginx): whether wrk's connections kept every loop busy, or one core idled.
        public let loopCPUPercent: [Double]?
    }

    /// Always "edge".
    public let benchmark = "edge"
    /// wrk's threads.
    public let threads: Int
    /// wrk's kept-alive connections.
    public let connections: Int
    /// Seconds per target.
    public let seconds: Int
    /// `wrk -v`'s first line.
    public let wrkVersion: String
    /// `nginx -v`'s line.
    public let nginxVersion: String
    /// nginx first, then Hail's routes.
    public let rows: [Row]
    /// Each Hail route's requests/s over nginx's, by row name.
    public let ratioToNginx: [String: Double]
    /// The machine and build.
    public let machine: BenchMachine
    /// How the figures were taken.
    public let note: String

    init(settings: EdgeBenchmark, wrkVersion: String, nginxVersion: String, rows: [Row], machine: BenchMachine) {
        threads = settings.threads
        connections = settings.connections
        seconds = settings.seconds
        self.wrkVersion = wrkVersion
        self.nginxVersion = nginxVersion
        self.rows = rows
        let reference = rows.first { $0.name == "nginx" }?.figures.requestsPerSecond ?? 0
        var ratios: [String: Double] = [:]
        for row in rows where row.name != "nginx" && reference > 0 {
            ratios[row.name] = (row.figures.requestsPerSecond / reference).rounded(toPlaces: 3)
        }
        ratioToNginx = ratios
        self.machine = machine
        note =
            "wrk, nginx and `hail server` (a child process, rate limits off) share this machine's \(machine.cores) "
            + "cores; one target at a time"
    }

    /// The human-readable report.
    public var table: String {
        var table = BenchTable(
            title: "hail bench edge: wrk -t \(threads) -c \(connections) -d \(seconds)s, kept-alive connections")
        for row in rows {
            let figures = row.figures
            var text =
                "\(figures.requestsPerSecond.fixed(0)) req/s, p50 \(figures.p50Ms.fixed(3)) ms, "
                + "p99 \(figures.p99Ms.fixed(3)) ms, max \(figures.maxMs.fixed(1)) ms"
            if let ratio = ratioToNginx[row.name] { text += ", \(ratio.fixed(3))x nginx" }
            if figures.non2xx > 0 { text += ", \(figures.non2xx) not 2xx/3xx" }
            if figures.socketErrors > 0 { text += ", \(figures.socketErrors) socket errors" }
            if let cpu = row.serverCPUPercent { text += ", server CPU \(cpu.fixed(0))%" }
            if let loops = row.loopCPUPercent {
                text += " (loops " + loops.map { "\($0.fixed(0))%" }.joined(separator: " / ") + ")"
            }
            table.add(row.request, text)
            table.add("  answer", row.answer.map { "status \($0)" } ?? "none")
        }
        table.add("wrk", wrkVersion)
        table.add("nginx", nginxVersion)
        table.add("machine", machine.summary)
        table.add("note", note)
        return table.text
    }
}
