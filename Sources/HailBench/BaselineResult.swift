import Foundation

/// What `hail bench baseline` measured: Redis on this machine, Hail's ingest, and their ratios.
public struct BaselineResult: Encodable, Sendable {
    /// Hail's figures compared.
    public struct Hail: Encodable, Sendable {
        /// Where they came from: a short run now, or the `--ingest-json` file.
        public let source: String
        /// Acknowledged fixes per second.
        public let updatesPerSecond: Double
        /// Acknowledged batches (one request-answer round trip each) per second.
        public let batchesPerSecond: Double
        /// Send-to-ack p50 and p99, ms.
        public let p50Ms: Double
        /// Send-to-ack p99, ms.
        public let p99Ms: Double
        /// Driver connections (the concurrency).
        public let connections: Int
        /// Fixes per batch.
        public let pointsPerBatch: Int
        /// Binary or JSON frames.
        public var encoding = "json"
        /// The server's CPU microseconds per acknowledged batch (nil when read from a file without it).
        public var serverCpuMicrosPerBatch: Double?
    }

    /// Always "baseline".
    public let benchmark = "baseline"
    /// redis-benchmark's version line.
    public let redisBenchmarkVersion: String
    /// Parallel connections given to redis-benchmark.
    public let clients: Int
    /// Requests per test.
    public let requests: Int
    /// Pipelining per connection.
    public let pipeline: Int
    /// Bytes of the PUBLISH payload (one fix as a JSON location frame).
    public let publishPayloadBytes: Int
    /// GEOADD of one driver's position.
    public let redisGeoadd: RedisBaseline.Figure
    /// PUBLISH of one position to a trip channel.
    public let redisPublish: RedisBaseline.Figure
    /// Hail's ingest.
    public let hail: Hail
    /// Hail's acknowledged batches/s over Redis GEOADD/s (request for request).
    public let hailBatchesToGeoadd: Double
    /// Hail's acknowledged fixes/s over Redis GEOADD/s (position for position).
    public let hailUpdatesToGeoadd: Double
    /// Hail's acknowledged batches/s over Redis PUBLISH/s.
    public let hailBatchesToPublish: Double
    /// Hail's p99 over Redis GEOADD p99.
    public let hailP99ToGeoaddP99: Double
    /// The Hail server's CPU microseconds per acknowledged batch in the saturating ingest.
    public let hailServerCpuMicrosPerBatch: Double?
    /// redis-server's CPU microseconds per GEOADD, measured in the same run.
    public let redisCpuMicrosPerGeoadd: Double?
    /// The cost of one Hail batch in units of one GEOADD, CPU for CPU (issue 13's target: at most 2.0).
    public let cpuPerBatchToGeoadd: Double?
    /// The machine.
    public let machine: BenchMachine

    /// Builds the ratios.
    init(
        version: String, redis: RedisBaseline, payloadBytes: Int, geoadd: RedisBaseline.Figure,
        publish: RedisBaseline.Figure, hail: Hail, machine: BenchMachine
    ) {
        redisBenchmarkVersion = version
        clients = redis.clients
        requests = redis.requests
        pipeline = redis.pipeline
        publishPayloadBytes = payloadBytes
        redisGeoadd = geoadd
        redisPublish = publish
        self.hail = hail
        /// `a / b` to three decimals, 0 when `b` is 0.
        func ratio(_ a: Double, _ b: Double) -> Double { b > 0 ? (a / b).rounded(toPlaces: 3) : 0 }
        hailBatchesToGeoadd = ratio(hail.batchesPerSecond, geoadd.requestsPerSecond)
        hailUpdatesToGeoadd = ratio(hail.updatesPerSecond, geoadd.requestsPerSecond)
        hailBatchesToPublish = ratio(hail.batchesPerSecond, publish.requestsPerSecond)
        hailP99ToGeoaddP99 = ratio(hail.p99Ms, geoadd.p99Ms)
        hailServerCpuMicrosPerBatch = hail.serverCpuMicrosPerBatch
        redisCpuMicrosPerGeoadd = geoadd.serverCpuMicrosPerRequest
        if let batch = hail.serverCpuMicrosPerBatch, let geoadd = geoadd.serverCpuMicrosPerRequest {
            cpuPerBatchToGeoadd = ratio(batch, geoadd)
        } else {
            cpuPerBatchToGeoadd = nil
        }
        self.machine = machine
    }

    /// The human-readable report.
    public var table: String {
        var table = BenchTable(
            title:
                "hail bench baseline: redis-benchmark -c \(clients) -n \(requests) -P \(pipeline) beside Hail's ingest")
        /// One figure's row.
        func row(_ figure: RedisBaseline.Figure) -> String {
            "\(figure.requestsPerSecond.fixed(0)) requests/s, p50 \(figure.p50Ms.fixed(3)) ms, p99 \(figure.p99Ms.fixed(3)) ms"
        }
        table.add("redis GEOADD", row(redisGeoadd))
        table.add("redis PUBLISH", row(redisPublish) + " (\(publishPayloadBytes)-byte payload)")
        table.add(
            "hail ingest",
            "\(hail.updatesPerSecond.fixed(0)) fixes/s in \(hail.batchesPerSecond.fixed(0)) acked batches/s of "
                + "\(hail.pointsPerBatch), \(hail.connections) drivers, p50 \(hail.p50Ms.fixed(3)) ms, "
                + "p99 \(hail.p99Ms.fixed(3)) ms (\(hail.source))")
        table.add("batches : GEOADD", "\(hailBatchesToGeoadd.fixed(3))x (request for request)")
        table.add("fixes : GEOADD", "\(hailUpdatesToGeoadd.fixed(3))x (position for position)")
        table.add("batches : PUBLISH", "\(hailBatchesToPublish.fixed(3))x")
        table.add("p99 : GEOADD p99", "\(hailP99ToGeoaddP99.fixed(2))x")
        if let hailServerCpuMicrosPerBatch, let redisCpuMicrosPerGeoadd, let cpuPerBatchToGeoadd {
            table.add(
                "CPU batch : GEOADD",
                "\(cpuPerBatchToGeoadd.fixed(2))x (hail server \(hailServerCpuMicrosPerBatch.fixed(1)) us per "
                    + "\(hail.encoding) batch, redis-server \(redisCpuMicrosPerGeoadd.fixed(1)) us per GEOADD)")
        }
        table.add("version", redisBenchmarkVersion)
        table.add("machine", machine.summary)
        return table.text
    }
}
