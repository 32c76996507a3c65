import Foundation

extension BenchCommand {
    /// `hail bench baseline [--clients N] [--requests N] [--pipeline N] [--seconds S | --ingest-json FILE] [--json]`.
    static func runBaseline(_ arguments: [String]) async throws(UsageError) {
        let args = try Arguments(
            arguments, options: ["--clients", "--requests", "--pipeline", "--seconds", "--ingest-json"],
            flags: ["--json"])
        var redis = RedisBaseline()
        redis.clients = try args.integer("--clients", default: 100, in: 1...10_000)
        redis.requests = try args.integer("--requests", default: 200_000, in: 1...100_000_000)
        redis.pipeline = try args.integer("--pipeline", default: 1, in: 1...1_000)
        let seconds = try args.integer("--seconds", default: 10, in: 1...600)
        if args["--ingest-json"] != nil, args["--seconds"] != nil {
            throw UsageError("--seconds sets the short ingest run, which --ingest-json replaces; give one")
        }
        var hail: BaselineResult.Hail?
        if let path = args["--ingest-json"] {
            hail = try readIngest(path)
        }
        signal(SIGPIPE, SIG_IGN)
        let machine = BenchMachine.current()
        let payload = LocationFrameFactory(
            index: 0, pointsPerBatch: 1, startMilliseconds: Int64(Date().timeIntervalSince1970 * 1000)
        ).json(seq: 1)
        do {
            if hail == nil {
                // The same concurrency as Redis gets: one driver per client, one batch in flight each.
                var ingest = IngestBenchmark()
                ingest.connections = redis.clients
                ingest.seconds = seconds
                ingest.pacing = .saturate(window: redis.pipeline)
                // Binary frames: the compact codec phones send; JSON decoding would be most of the batch's cost.
                ingest.binary = true
                let server = try await ServerProcess.start()
                do {
                    let target = try BenchTarget.remote(
                        url: "http://127.0.0.1:\(server.port)", secretFile: server.secretFile)
                    let result = try await ingest.run(on: target, server: server)
                    await server.stop()
                    hail = BaselineResult.Hail(
                        source: "a \(seconds) s run of `hail bench ingest --saturate --window \(redis.pipeline) "
                            + "--connections \(redis.clients) --binary` just now, server in a child process",
                        updatesPerSecond: result.ackedUpdatesPerSecond, batchesPerSecond: result.ackedBatchesPerSecond,
                        p50Ms: result.latency.p50Ms, p99Ms: result.latency.p99Ms, connections: result.connected,
                        pointsPerBatch: result.pointsPerBatch, encoding: result.encoding,
                        serverCpuMicrosPerBatch: result.serverCpuMicrosPerBatch)
                } catch {
                    await server.stop()
                    throw error
                }
            }
            let (geoadd, publish, version) = try await redis.run(publishPayload: payload)
            guard let hail else { return }
            let result = BaselineResult(
                version: version, redis: redis, payloadBytes: payload.utf8.count, geoadd: geoadd, publish: publish,
                hail: hail, machine: machine)
            report(result, table: result.table, json: args.has("--json"))
        } catch let error as BenchFailure {
            failed(error)
        } catch let error as UsageError {
            failed(BenchFailure(error.message))
        } catch {
            failed(BenchFailure("\(error)"))
        }
    }

    /// Hail's figures from a saved `hail bench ingest --json` object.
    private static func readIngest(_ path: String) throws(UsageError) -> BaselineResult.Hail {
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            object["benchmark"] as? String == "ingest",
            let updates = object["ackedUpdatesPerSecond"] as? Double,
            let batches = object["ackedBatchesPerSecond"] as? Double,
            let latency = object["latency"] as? [String: Any]
        else {
            throw UsageError("--ingest-json: '\(path)' is not the output of `hail bench ingest --json`")
        }
        return BaselineResult.Hail(
            source: path, updatesPerSecond: updates, batchesPerSecond: batches,
            p50Ms: latency["p50Ms"] as? Double ?? 0, p99Ms: latency["p99Ms"] as? Double ?? 0,
            connections: object["connected"] as? Int ?? 0, pointsPerBatch: object["pointsPerBatch"] as? Int ?? 0,
            encoding: object["encoding"] as? String ?? "json",
            serverCpuMicrosPerBatch: object["serverCpuMicrosPerBatch"] as? Double)
    }
}
