import Foundation
import HailProcess
import HailTesting
import Testing

/// `hail bench ...` as a child process at tiny sizes: each runs, prints one well-formed JSON object with
/// the keys the issue names, and the exact figures (bytes, counts) are pinned. Timings are never asserted.
@Suite("hail bench quick checks", .serialized)
struct BenchCommandTests {
    /// Runs `hail bench <arguments>` to the end; its standard output and exit status.
    static func bench(_ arguments: [String], seconds: Double = 120) async throws -> (output: String, status: Int32?) {
        try #require(
            FileManager.default.isExecutableFile(atPath: DriveProcess.executable.path),
            "build the hail executable first (swift build --build-tests builds it beside the tests)")
        let process = try DriveProcess(arguments, command: "bench")
        let lines = await withDeadline(seconds) { () -> [String] in
            var lines: [String] = []
            for await line in process.lines { lines.append(line) }
            return lines
        }
        if lines == nil {
            let state = process.process.isRunning ? "was still running" : "had exited"
            Issue.record(
                "hail bench \(arguments.joined(separator: " ")) did not end in \(Int(seconds)) s; the process \(state)")
            process.process.send(SIGTERM)
        }
        return ((lines ?? []).joined(separator: "\n"), lines == nil ? nil : await process.status())
    }

    /// The pids of running `redis-server`s that are not this test process's own children (another suite starts
    /// one of its own): a throwaway one `hail bench baseline` left behind would be among them.
    static func throwawayRedisServers() -> Set<Int32> {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return Set(
            entries.compactMap { entry -> Int32? in
                guard let pid = Int32(entry),
                    let name = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8),
                    name.hasPrefix("redis-server"),
                    let status = try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8),
                    let parent = status.split(separator: "\n").first(where: { $0.hasPrefix("PPid:") })
                else { return nil }
                return Int32(parent.dropFirst(5).trimmingCharacters(in: .whitespaces)) == getpid() ? nil : pid
            })
    }

    /// The single JSON object a `--json` run prints.
    static func object(_ output: String) throws -> [String: Any] {
        let data = Data(output.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        return try #require(
            try JSONSerialization.jsonObject(with: data) as? [String: Any], "not one JSON object: \(output)")
    }

    @Test("wire: the Munich drive's bytes per fix and per shift, exact", .enabled(if: SharedData.isAvailable))
    func wire() async throws {
        let (output, status) = try await Self.bench(["wire", "--json"])
        #expect(status == 0)
        let json = try Self.object(output)
        #expect(json["benchmark"] as? String == "wire")
        #expect(json["traceFixes"] as? Int == 1194)
        let single = try #require(json["singleUpdate"] as? [String: Any])
        #expect(single["fixes"] as? Int == 1194)
        #expect(single["jsonBytesTotal"] as? Int == 217_259)
        #expect(single["binaryBytesTotal"] as? Int == 29_059)
        #expect(single["framedBinaryBytesTotal"] as? Int == 36_223)
        let rows = try #require(json["policies"] as? [[String: Any]])
        let expected: [(String, Int, Int, Int, Int, Int)] = [
            ("on trip, nominal", 9158, 24311, 374_340, 4_321_868, 12_426),
            ("on trip, Low Power or fair", 7531, 15063, 262_936, 2_812_459, 8728),
            ("on trip, serious or critical", 6899, 7742, 188_345, 1_664_164, 6252),
            ("waiting while driving, nominal", 2952, 7742, 123_695, 1_364_264, 4106),
            ("waiting in one spot (keep-alive only)", 3020, 3020, 80_250, 521_380, 8025),
        ]
        #expect(rows.count == expected.count)
        for (row, want) in zip(rows, expected) {
            #expect(row["policy"] as? String == want.0)
            #expect(row["sendsPerShift"] as? Int == want.1)
            #expect(row["pointsPerShift"] as? Int == want.2)
            #expect(row["binaryBytesPerShift"] as? Int == want.3)
            #expect(row["jsonBytesPerShift"] as? Int == want.4)
            #expect(row["replayedBinaryBytes"] as? Int == want.5)
        }
        let targets = try #require(json["targets"] as? [[String: Any]])
        #expect(
            targets.map { $0["name"] as? String } == [
                "binaryBytesPerPointInBatches", "binaryBytesPerShift", "designBytesPerUpdate", "designBytesPerShift",
            ])
        #expect(targets.map { $0["met"] as? Bool } == [false, false, true, true])
        #expect(targets[1]["missedBy"] as? Double == 264_340)
    }

    @Test("ingest: drivers on a `hail server` child; the issue's keys, every fix accepted")
    func ingest() async throws {
        let (output, status) = try await Self.bench([
            "ingest", "--connections", "5", "--interval-ms", "200", "--duration", "1", "--riders", "0.4", "--json",
        ])
        #expect(status == 0)
        let json = try Self.object(output)
        #expect(json["benchmark"] as? String == "ingest")
        #expect(json["connected"] as? Int == 5)
        let latency = try #require(json["latencyMs"] as? [String: Double])
        #expect(Set(latency.keys) == ["p50", "p99", "p999", "max"])
        #expect(json["updatesPerSecond"] is Double)
        #expect((json["serverCpuPercent"] as? Double).map { $0 >= 0 } == true)
        #expect((json["serverRssBytes"] as? Int).map { $0 > 1_000_000 } == true)
        #expect(json["dropped"] as? [String: Int] == ["batchesNeverAcked": 0])
        let sent = try #require(json["sentPoints"] as? Int)
        #expect(sent > 0)
        // Every fix sent in the window, plus the one position each watched driver reported at setup.
        #expect(json["serverLocationUpdates"] as? [String: Int] == ["accepted": sent + 2])
        let riders = try #require(json["riders"] as? [String: Any])
        #expect(riders["asked"] as? Int == 2)
        #expect(riders["watching"] as? Int == 2)
        #expect(riders["unmatched"] as? Int == 0)
        #expect((riders["driverMovedReceived"] as? Int).map { $0 > 0 } == true)
        #expect(json["latencyMeasured"] as? String == "driverSendToRiderReceive")
    }

    @Test("connections: 50 idle driver streams held on a `hail server` child")
    func connections() async throws {
        let (output, status) = try await Self.bench(["connections", "--count", "50", "--hold", "0", "--json"])
        #expect(status == 0)
        let json = try Self.object(output)
        #expect(json["benchmark"] as? String == "connections")
        #expect(json["requested"] as? Int == 50)
        #expect(json["attempted"] as? Int == 50)
        #expect(json["connected"] as? Int == 50)
        #expect(json["stillOpen"] as? Int == 50)
        #expect(json["failures"] as? Int == 0)
        #expect(json["sourceAddresses"] as? Int == 1)
        #expect(
            (json["checkpoints"] as? [[String: Any]])?.map { $0["connections"] as? Int } == [
                5, 10, 15, 20, 25, 30, 35, 40, 45, 50,
            ])
        #expect((json["serverRssBytes"] as? Int).map { $0 > 1_000_000 } == true)
        #expect(json["reached200k"] as? Bool == false)
        #expect(json["serverAlive"] as? Bool == true)
    }

    @Test(
        "baseline: redis-benchmark's GEOADD and PUBLISH beside a saved ingest figure, as ratios",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/redis-benchmark")))
    func baseline() async throws {
        let saved = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: saved) }
        let ingest =
            #"{"benchmark":"ingest","ackedUpdatesPerSecond":3000.0,"ackedBatchesPerSecond":1000.0,"#
            + #""latency":{"p50Ms":0.5,"p99Ms":2.0},"connected":10,"pointsPerBatch":3}"#
        try Data(ingest.utf8).write(to: saved)
        let before = Self.throwawayRedisServers()
        let (output, status) = try await Self.bench([
            "baseline", "--clients", "4", "--requests", "500", "--ingest-json", saved.path, "--json",
        ])
        #expect(status == 0)
        // The issue's orphan: the redis-server it started is gone once `hail` has exited (it used to inherit a
        // mask blocking SIGTERM and outlive the run).
        #expect(Self.throwawayRedisServers().subtracting(before) == [])
        let json = try Self.object(output)
        #expect(json["benchmark"] as? String == "baseline")
        #expect(json["clients"] as? Int == 4)
        #expect(json["requests"] as? Int == 500)
        #expect(json["publishPayloadBytes"] as? Int == 134)
        let geoadd = try #require(json["redisGeoadd"] as? [String: Any])
        let rps = try #require(geoadd["requestsPerSecond"] as? Double)
        #expect(rps > 0)
        let ratio = try #require(json["hailBatchesToGeoadd"] as? Double)
        #expect(abs(ratio - (1000 / rps)) < 0.001)
        #expect((json["hail"] as? [String: Any])?["updatesPerSecond"] as? Double == 3000)
    }

    @Test("route: Monaco's graph and 20 seeded routes", .enabled(if: SharedData.isAvailable))
    func route() async throws {
        let (output, status) = try await Self.bench(["route", "--routes", "20", "--traces", "1", "--json"])
        #expect(status == 0)
        let json = try Self.object(output)
        #expect(json["benchmark"] as? String == "route")
        #expect(json["nodeCount"] as? Int == 16_366)
        #expect(json["edgeCount"] as? Int == 28_815)
        #expect(json["routes"] as? Int == 20)
        #expect(json["routesFound"] as? Int == 18)
        #expect(json["meanRouteMeters"] as? Double == 8_611)
        #expect((json["matching"] as? [[String: Any]])?.map { $0["points"] as? Int } == [865, 58])
        #expect((json["matching"] as? [[String: Any]])?.map { $0["sampleSeconds"] as? Double } == [1, 15])
    }

    @Test("client: a 2-hour shift of the rider and driver cores; what they hold at the end is bounded")
    func client() async throws {
        let (output, status) = try await Self.bench([
            "client", "--frames", "1000", "--applies", "1000", "--hours", "2", "--json",
        ])
        #expect(status == 0)
        let json = try Self.object(output)
        #expect(json["benchmark"] as? String == "client")
        #expect(json["framesDrawn"] as? Int == 1000)
        #expect(json["applied"] as? Int == 1000)
        let rider = try #require(json["rider"] as? [String: Any])
        #expect(rider["events"] as? Int == 2400)
        #expect((rider["hourlyRssBytes"] as? [Int])?.count == 3)
        #expect(rider["retained"] as? [String: Int] == ["glideCapacity": 16, "framesMoving": 431_819])
        let driver = try #require(json["driver"] as? [String: Any])
        #expect(driver["events"] as? Int == 7200)
        #expect(
            driver["retained"] as? [String: Int] == [
                "sends": 2400, "bufferedPoints": 0, "pendingPoints": 2, "inFlightBatches": 0,
            ])
    }

    @Test("ingest --nodes 2 without PostgreSQL and Redis is a usage mistake (exit 64), not a run")
    func twoNodesNeedTheSharedBackends() async throws {
        let (output, status) = try await Self.bench(["ingest", "--nodes", "2", "--json"])
        #expect(status == 64)
        #expect(output.isEmpty)
    }

    @Test("an unknown benchmark exits 64 naming the ones there are")
    func unknownBenchmark() async throws {
        let (_, status) = try await Self.bench(["teleport"])
        #expect(status == 64)
    }
}
