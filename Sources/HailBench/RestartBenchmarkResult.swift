import Foundation

/// What `hail bench restarts` measured: a rolling restart of two scaled nodes behind nginx, then a SIGKILL of the
/// node holding the streams, under drivers streaming a batch a second and riders watching their trips.
public struct RestartBenchmarkResult: Encodable, Sendable {
    /// One phase's figures.
    public struct Phase: Encodable, Sendable {
        /// Batches acknowledged to a driver that the shared ingest state (Redis `seq`) does not hold afterwards.
        public var acknowledgedBatchesLost = 0
        /// Trip versions a rider never received although the trip reached them.
        public var tripEventsLost = 0
        /// Trip taps applied more than once (the trip's version beyond one step per tap).
        public var tripEventsDoubled = 0
        /// Taps the server refused or never answered.
        public var tapsFailed = 0
        /// Riders' longest time without a position over the phase, seconds: p50, p99, max.
        public var riderGapP50 = 0.0
        /// See `riderGapP50`.
        public var riderGapP99 = 0.0
        /// See `riderGapP50`.
        public var riderGapMax = 0.0
        /// Rolling: seconds from a driver's 4012 to its first ack on its next connection: p50, p99, max.
        public var driverMoveP50: Double?
        /// See `driverMoveP50`.
        public var driverMoveP99: Double?
        /// See `driverMoveP50`.
        public var driverMoveMax: Double?
        /// Rolling: seconds from a rider's 4012 to the first position on its next connection: p50, p99, max.
        public var riderMoveP50: Double?
        /// See `riderMoveP50`.
        public var riderMoveP99: Double?
        /// See `riderMoveP50`.
        public var riderMoveMax: Double?
        /// Rolling: riders told to move while their driver's own move was under way (their gaps join).
        public var riderMovesDuringDriverMove = 0
        /// Rolling: the drivers' moves of each drain in turn (node 1's streams, then node 2's): p50 and p99, seconds.
        public var driverMovesByDrain: [[Double]] = []
        /// Rolling: what the longest gaps of the riders at or above the p90 gap overlapped: `driver's move`, `own
        /// move`, `both`, `neither` (counts): where the tail comes from.
        public var tailGapCauses: [String: Int] = [:]
        /// Streams closed by the server during the phase, by close code.
        public var closes: [String: Int] = [:]
        /// How each drained or killed node ended (`exited(0)`, `signalled(9)`).
        public var exits: [String] = []
        /// Seconds from the SIGKILL until every driver had an ack again (nil: not every driver within the wait).
        public var everyStreamBackSeconds: Double?
        /// Drivers with no ack since the kill when the wait ended.
        public var driversNotBack = 0
        /// Seconds the phase took.
        public var seconds = 0.0
        /// After the kill: seconds until half, and nine in ten, of the drivers had an ack again.
        public var backP50: Double?
        /// See `backP50`.
        public var backP90: Double?
        /// After the kill: seconds until half the drivers, and the last one, had their handshake done.
        public var handshakeP50: Double?
        /// See `handshakeP50`.
        public var handshakeMax: Double?
        /// After the kill: drivers whose first ack came in each second (index 0: the first second).
        public var backBySecond: [Int] = []
        /// After the kill: the most connects one driver tried before it was back.
        public var mostAttempts = 0
        /// After the kill: failed connects by the client's reason.
        public var connectFailures: [String: Int] = [:]
        /// After the kill: the drivers' streams closed again, by code and reason (lws's client hands a 1013 over as
        /// 1002).
        public var closeReasons: [String: Int] = [:]
        /// What nginx's error log said during the phase, by kind (`no live upstreams`: it counted every node down and
        /// answered 502).
        public var frontErrors: [String: Int] = [:]
        /// Percent of one core each process took over the phase (`load generator` is this benchmark, its drivers'
        /// and riders' client loops); the machine has `machine.cores` of them.
        public var cpuPercent: [String: Double] = [:]
    }

    /// Always "restarts".
    public let benchmark = "restarts"
    /// Driver streams asked for, and connected at the start.
    public let drivers: Int
    /// See `drivers`.
    public let driversConnected: Int
    /// Riders asked for, and watching (their trip set up) at the start.
    public let riders: Int
    /// See `riders`.
    public let ridersWatching: Int
    /// The drain settings the nodes ran with (seconds).
    public let drainGrace: Double
    /// See `drainGrace`.
    public let drainSpread: Double
    /// The nodes' `--drain-rate`, streams a second.
    public let drainRate: Double
    /// See `drainGrace`.
    public let drainBound: Double
    /// The rolling restart: node 1 drained and restarted, then node 2.
    public let rolling: Phase
    /// The SIGKILL of the node holding the streams.
    public let kill: Phase
    /// Trip setups that failed, the first few.
    public let setupFailures: [String]
    /// The machine.
    public let machine: BenchMachine

    /// The human-readable report.
    public var table: String {
        var table = BenchTable(
            title: "hail bench restarts: 2 scaled nodes behind nginx, \(drivers) drivers, \(riders) riders")
        table.add("connected", "\(driversConnected) drivers, \(ridersWatching) riders watching a trip")
        table.add(
            "drain",
            "grace \(Self.seconds(drainGrace)), spread \(Self.seconds(drainSpread)), rate \(Int(drainRate))/s, bound"
                + " \(Self.seconds(drainBound))")
        for (name, phase) in [("rolling restart", rolling), ("SIGKILL", kill)] {
            table.add(name, "\(Self.seconds(phase.seconds)); nodes ended \(phase.exits.joined(separator: ", "))")
            table.add("  acknowledged batches lost", "\(phase.acknowledgedBatchesLost)")
            table.add(
                "  trip events lost / doubled",
                "\(phase.tripEventsLost) / \(phase.tripEventsDoubled) (taps failed \(phase.tapsFailed))")
            table.add(
                "  riders' longest gap",
                "p50 \(Self.seconds(phase.riderGapP50)), p99 \(Self.seconds(phase.riderGapP99)), max \(Self.seconds(phase.riderGapMax))"
            )
            if name == "rolling restart" {
                table.add(
                    "  drivers' moves, 4012 to ack",
                    "p50 \(Self.seconds(phase.driverMoveP50)), p99 \(Self.seconds(phase.driverMoveP99)),"
                        + " max \(Self.seconds(phase.driverMoveMax))")
                table.add(
                    "  riders' moves, 4012 to position",
                    "p50 \(Self.seconds(phase.riderMoveP50)), p99 \(Self.seconds(phase.riderMoveP99)),"
                        + " max \(Self.seconds(phase.riderMoveMax)); \(phase.riderMovesDuringDriverMove) during"
                        + " their driver's")
                table.add(
                    "  drivers' moves by drain",
                    phase.driverMovesByDrain.enumerated().map { drain, figures in
                        "node \(drain + 1)'s: p50 \(Self.seconds(figures.first)), p99 \(Self.seconds(figures.last))"
                    }.joined(separator: "; "))
                table.add(
                    "  gaps >= p90 overlapped",
                    phase.tailGapCauses.sorted { $0.value > $1.value }.map { "\($0.key) x\($0.value)" }.joined(
                        separator: ", "))
            }
            table.add(
                "  closes by code",
                phase.closes.sorted { $0.key < $1.key }.map { "\($0.key) x\($0.value)" }.joined(separator: ", "))
            if name == "SIGKILL" {
                table.add(
                    "  every stream back and acked",
                    phase.everyStreamBackSeconds.map { Self.seconds($0) }
                        ?? "no (\(phase.driversNotBack) drivers not back)")
                table.add(
                    "  back and acked p50 / p90",
                    "\(phase.backP50.map { Self.seconds($0) } ?? "-") / \(phase.backP90.map { Self.seconds($0) } ?? "-")"
                )
                table.add(
                    "  handshakes p50 / last",
                    "\(phase.handshakeP50.map { Self.seconds($0) } ?? "-") / \(phase.handshakeMax.map { Self.seconds($0) } ?? "-")"
                )
                table.add("  acks back by second", phase.backBySecond.map(String.init).joined(separator: " "))
                table.add(
                    "  connects failed",
                    phase.connectFailures.sorted { $0.value > $1.value }.prefix(4).map { "\($0.value) x \($0.key)" }
                        .joined(separator: "; ") + " (most tries by one driver: \(phase.mostAttempts))")
                table.add(
                    "  drivers' closes",
                    phase.closeReasons.sorted { $0.value > $1.value }.prefix(4).map { "\($0.value) x \($0.key)" }
                        .joined(separator: "; "))
            }
            table.add(
                "  nginx's errors",
                phase.frontErrors.sorted { $0.value > $1.value }.map { "\($0.value) x \($0.key)" }.joined(
                    separator: "; "))
            table.add(
                "  CPU, % of one core",
                phase.cpuPercent.sorted { $0.key < $1.key }.map { "\($0.key) \(Int($0.value))" }.joined(separator: ", ")
            )
        }
        if !setupFailures.isEmpty { table.add("trip setups failed", setupFailures.joined(separator: "; ")) }
        table.add("machine", machine.summary)
        return table.text
    }

    static func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }

    static func seconds(_ value: Double?) -> String { value.map { seconds($0) } ?? "-" }
}
