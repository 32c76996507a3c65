import Foundation
import HailCore
import HailDriver
import HailProtocol

/// `hail bench wire`: what a driver's positions cost on the wire, as JSON text frames and as the binary
/// batch (`LocationBatchCodec`), one fix at a time and batched by the real pipeline at each policy, and
/// what a 10-hour shift uploads. Pure arithmetic on a recorded drive: exact and the same on every run.
public struct WireBenchmark: Sendable {
    /// The recorded drive (the real Munich trace by default).
    public var trace: [LocationPoint]
    /// Where the drive came from, for the report.
    public var traceName: String

    /// A benchmark of `trace`, named `traceName` in the report.
    public init(trace: [LocationPoint], traceName: String) {
        self.trace = trace
        self.traceName = traceName
    }

    /// The shift the design sizes: 10 hours.
    static let shiftSeconds: TimeInterval = 10 * 3600
    /// Seconds the replay runs past the last fix, so the last batch leaves.
    static let tailSeconds: TimeInterval = 30

    /// The policies a driver's phone runs under, each replayed over the whole trace.
    static let policies: [(name: String, policy: LocationPolicy, riderWatching: Bool)] = [
        ("on trip, nominal", LocationPolicy(activity: .onTrip, thermal: .nominal, lowPower: false), true),
        ("on trip, Low Power or fair", LocationPolicy(activity: .onTrip, thermal: .nominal, lowPower: true), true),
        ("on trip, serious or critical", LocationPolicy(activity: .onTrip, thermal: .serious, lowPower: false), true),
        (
            "waiting while driving, nominal",
            LocationPolicy(activity: .waitingForTrip, thermal: .nominal, lowPower: false), false
        ),
    ]

    /// Replays every policy and measures the single-fix frames.
    public func run() throws(BenchError) -> WireBenchmarkResult {
        guard let first = trace.first, let last = trace.last, last.t > first.t else {
            throw BenchError("the trace \(traceName) needs at least two fixes at different times")
        }
        let duration = last.t.timeIntervalSince(first.t)
        var single = WireBenchmarkResult.SingleUpdate(fixes: trace.count)
        for (index, point) in trace.enumerated() {
            let batch = LocationBatch(seq: Int64(index + 1), points: [point])
            let json = try Self.jsonBytes(batch)
            let binary = try Self.binaryBytes(batch)
            single.jsonBytesTotal += json
            single.binaryBytesTotal += binary
            single.framedBinaryBytesTotal += binary + Self.clientFrameOverhead(payload: binary)
        }
        var rows: [WireBenchmarkResult.PolicyRow] = []
        for (name, policy, riderWatching) in Self.policies {
            var replay = PipelineReplay(policy: policy, start: first.t, riderWatching: riderWatching)
            replay.play(trace, tail: Self.tailSeconds)
            rows.append(try Self.row(name: name, policy: policy, replay: replay, seconds: duration))
        }
        rows.append(try Self.standingStillRow())
        return WireBenchmarkResult(
            traceName: traceName, traceFixes: trace.count, traceSeconds: Int(duration.rounded()), single: single,
            rows: rows, machine: BenchMachine.current())
    }

    /// A driver waiting in one spot for an hour: the distance filter passes nothing, so only the
    /// keep-alive goes out (the shift-budget tests' standing-still case, scaled from one hour).
    static func standingStillRow() throws(BenchError) -> WireBenchmarkResult.PolicyRow {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let hour = (0..<3600).map { second in
            LocationPoint(lat: 43.7396, lng: 7.4276, accuracy: 20, heading: -1, speed: 0, t: start + Double(second))
        }
        let policy = LocationPolicy(activity: .waitingForTrip, thermal: .nominal, lowPower: false)
        var replay = PipelineReplay(policy: policy, start: start)
        replay.play(hour, tail: tailSeconds)
        return try row(name: "waiting in one spot (keep-alive only)", policy: policy, replay: replay, seconds: 3600)
    }

    /// One policy's figures, scaled from `seconds` of replay to a shift.
    static func row(name: String, policy: LocationPolicy, replay: PipelineReplay, seconds: TimeInterval)
        throws(BenchError) -> WireBenchmarkResult.PolicyRow
    {
        let scale = shiftSeconds / seconds
        var json = 0
        var binary = 0
        var framed = 0
        var headers = 0
        var firsts = 0
        for batch in replay.sent {
            json += try jsonBytes(batch)
            let bytes = try binaryBytes(batch)
            binary += bytes
            framed += bytes + clientFrameOverhead(payload: bytes)
            // Where the bytes go: the batch header, the absolute first fix, the deltas after it.
            let header = try binaryBytes(LocationBatch(seq: batch.seq, points: [], backlog: batch.backlog))
            headers += header
            firsts += try binaryBytes(LocationBatch(seq: batch.seq, points: Array(batch.points.prefix(1)))) - header
        }
        guard binary == replay.pipeline.stats.bytes else {
            throw BenchError(
                "internal: the pipeline counted \(replay.pipeline.stats.bytes) bytes, the codec \(binary)")
        }
        let points = replay.sent.map(\.points.count).reduce(0, +)
        /// `value` over the replay, scaled to the shift.
        func shift(_ value: Int) -> Int { Int((Double(value) * scale).rounded()) }
        return WireBenchmarkResult.PolicyRow(
            policy: name, intervalSeconds: [policy.interval.lowerBound, policy.interval.upperBound],
            distanceFilterMeters: policy.distanceFilter, replayedSends: replay.sent.count, replayedPoints: points,
            replayedBinaryBytes: binary, replayedHeaderBytes: headers, replayedFirstPointBytes: firsts,
            replayedJSONBytes: json, sendsPerShift: shift(replay.sent.count),
            pointsPerShift: shift(points), binaryBytesPerShift: shift(binary), jsonBytesPerShift: shift(json),
            framedBinaryBytesPerShift: shift(framed))
    }

    /// The batch as the `location` JSON text frame the driver stream takes.
    static func jsonBytes(_ batch: LocationBatch) throws(BenchError) -> Int {
        do {
            return try HailJSON.encode(DriverClientFrame.location(batch)).count
        } catch {
            throw BenchError("internal: a location frame did not encode as JSON: \(error)")
        }
    }

    /// The batch in the binary batch format.
    static func binaryBytes(_ batch: LocationBatch) throws(BenchError) -> Int {
        do {
            return try LocationBatchCodec.encodeBytes(batch).count
        } catch {
            throw BenchError("internal: a location batch did not encode as binary: \(error)")
        }
    }

    /// Header bytes of one client-to-server WebSocket frame (RFC 6455: 2 bytes, the extended length,
    /// and the 4-byte mask every client frame carries).
    static func clientFrameOverhead(payload: Int) -> Int {
        if payload <= 125 { return 2 + 4 }
        if payload <= 65_535 { return 4 + 4 }
        return 10 + 4
    }
}
