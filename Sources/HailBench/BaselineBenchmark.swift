import Foundation
import HailProcess

/// `hail bench baseline`: redis-benchmark's GEOADD and PUBLISH on a throwaway `redis-server`, with the same
/// concurrency, beside Hail's saturating ingest (a short run now, or a saved one), as ratios.
public struct BaselineBenchmark: Sendable {
    /// Where Hail's side of the comparison comes from.
    public enum HailFigures: Sendable {
        /// A saturating binary ingest run of this many seconds, now, on a `hail server` child.
        case measure(seconds: Int)
        /// Figures saved earlier.
        case saved(BaselineResult.Hail)
    }

    /// Parallel connections given to redis-benchmark, and drivers in Hail's run.
    public var clients = 100
    /// Requests per redis-benchmark test.
    public var requests = 200_000
    /// Requests in flight per connection, and batches in flight per driver.
    public var pipeline = 1
    /// Hail's side.
    public var hail = HailFigures.measure(seconds: 10)
    /// The `hail` executable whose `server` Hail's run starts: by default this very executable (`hail bench`); tests give
    /// the one built beside them.
    public var hailExecutable = ServerChild.thisExecutable

    /// The defaults: 100 clients, 200,000 requests, no pipelining, a 10 s run of Hail's.
    public init() {}

    /// Measures Hail (unless saved), then Redis, and compares them.
    public func run() async throws(BenchError) -> BaselineResult {
        var redis = RedisBaseline()
        redis.clients = clients
        redis.requests = requests
        redis.pipeline = pipeline
        signal(SIGPIPE, SIG_IGN)
        let machine = BenchMachine.current()
        let payload = LocationFrameFactory(
            index: 0, pointsPerBatch: 1, startMilliseconds: Int64(Date().timeIntervalSince1970 * 1000)
        ).json(seq: 1)
        let figures: BaselineResult.Hail
        switch hail {
        case .saved(let saved):
            figures = saved
        case .measure(let seconds):
            // The same concurrency as Redis gets: one driver per client, `pipeline` batches in flight each, and
            // binary frames, the compact codec phones send (JSON decoding would be most of a batch's cost).
            var ingest = IngestBenchmark()
            ingest.connections = clients
            ingest.seconds = seconds
            ingest.pacing = .saturate(window: pipeline)
            ingest.binary = true
            ingest.hailExecutable = hailExecutable
            let result = try await ingest.run(.children())
            figures = BaselineResult.Hail(
                source: "a \(seconds) s run of `hail bench ingest --saturate --window \(pipeline) "
                    + "--connections \(clients) --binary` just now, server in a child process",
                updatesPerSecond: result.ackedUpdatesPerSecond, batchesPerSecond: result.ackedBatchesPerSecond,
                p50Ms: result.latency.p50Ms, p99Ms: result.latency.p99Ms, connections: result.connected,
                pointsPerBatch: result.pointsPerBatch, encoding: result.encoding,
                serverCpuMicrosPerBatch: result.serverCpuMicrosPerBatch)
        }
        let (geoadd, publish, version) = try await redis.run(publishPayload: payload)
        return BaselineResult(
            version: version, redis: redis, payloadBytes: payload.utf8.count, geoadd: geoadd, publish: publish,
            hail: figures, machine: machine)
    }
}

extension BaselineResult.Hail {
    /// Hail's figures from a saved `hail bench ingest --json` object; `source` names where it came from.
    public init(savedIngest data: Data, source: String) throws(BenchError) {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            object["benchmark"] as? String == "ingest",
            let updates = object["ackedUpdatesPerSecond"] as? Double,
            let batches = object["ackedBatchesPerSecond"] as? Double,
            let latency = object["latency"] as? [String: Any]
        else {
            throw .invalidOption("--ingest-json: '\(source)' is not the output of `hail bench ingest --json`")
        }
        self.init(
            source: source, updatesPerSecond: updates, batchesPerSecond: batches,
            p50Ms: latency["p50Ms"] as? Double ?? 0, p99Ms: latency["p99Ms"] as? Double ?? 0,
            connections: object["connected"] as? Int ?? 0, pointsPerBatch: object["pointsPerBatch"] as? Int ?? 0,
            encoding: object["encoding"] as? String ?? "json",
            serverCpuMicrosPerBatch: object["serverCpuMicrosPerBatch"] as? Double)
    }
}
