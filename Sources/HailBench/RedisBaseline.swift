import Foundation
import HailProcess

/// `redis-benchmark` (Debian redis-tools) against a throwaway `redis-server` on a free loopback port:
/// the reference the Hail figures are printed as a ratio to.
public struct RedisBaseline: Sendable {
    /// One redis-benchmark test's figures.
    public struct Figure: Encodable, Sendable {
        /// The command line measured (with redis-benchmark's `__rand_int__` placeholders).
        public let command: String
        /// Requests answered per second.
        public let requestsPerSecond: Double
        /// Median latency, ms.
        public let p50Ms: Double
        /// 99th percentile latency, ms.
        public let p99Ms: Double
        /// Slowest, ms.
        public let maxMs: Double
        /// redis-server's own CPU microseconds per request over the test (from its /proc/PID/stat).
        public var serverCpuMicrosPerRequest: Double?
    }

    /// Parallel connections (`-c`), like the ingest benchmark's drivers.
    var clients = 100
    /// Requests per test (`-n`).
    var requests = 200_000
    /// Requests in flight per connection (`-P`); 1 matches a driver awaiting each ack.
    var pipeline = 1

    /// Starts redis-server, runs GEOADD and PUBLISH with `publishPayload`, stops it.
    func run(publishPayload: String) async throws(BenchError) -> (geoadd: Figure, publish: Figure, version: String) {
        guard let benchmark = ExternalCommand.find("redis-benchmark"),
            let serverPath = ExternalCommand.find("redis-server"),
            let cli = ExternalCommand.find("redis-cli")
        else {
            throw BenchError(
                "redis-benchmark, redis-server and redis-cli are needed (Debian: apt-get install redis-server "
                    + "redis-tools; scripts/setup.sh installs them)")
        }
        guard let port = try? ServerChild.freeLoopbackPort() else {
            throw BenchError("no free loopback port for a throwaway redis-server")
        }
        let server: ChildProcess
        do {
            server = try ChildProcess.start(
                serverPath,
                [
                    "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize",
                    "no", "--maxclients", "\(max(1_000, clients * 2))",
                ])
        } catch {
            throw BenchError("cannot start redis-server: \(error)")
        }
        // Stopped and reaped before returning, so no redis-server outlives the run (and, should this process
        // die first, the child's death signal ends it).
        do {
            let figures = try await measureAll(
                benchmark: benchmark, cli: cli, port: port, server: server.pid,
                publishPayload: publishPayload)
            _ = await server.stop()
            return figures
        } catch {
            _ = await server.stop()
            throw error
        }
    }

    /// Waits for the throwaway server to answer, then runs GEOADD and PUBLISH against it.
    private func measureAll(benchmark: String, cli: String, port: Int, server pid: Int32, publishPayload: String)
        async throws(BenchError) -> (geoadd: Figure, publish: Figure, version: String)
    {
        var ready = false
        for _ in 0..<100 where !ready {
            ready = await ExternalCommand.run(cli, ["-p", "\(port)", "ping"]).output.contains("PONG")
            if !ready { try? await Task.sleep(for: .milliseconds(50)) }
        }
        guard ready else { throw BenchError("redis-server on port \(port) did not answer PING within 5 s") }
        let version =
            await ExternalCommand.run(benchmark, ["--version"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let common = [
            "-h", "127.0.0.1", "-p", "\(port)", "-c", "\(clients)", "-n", "\(requests)", "-P", "\(pipeline)", "-r",
            "1000000", "--csv",
        ]
        let geoadd = try await measure(
            benchmark, common,
            ["GEOADD", "drivers:bench", "7.4__rand_int__", "43.7__rand_int__", "driver-__rand_int__"], server: pid)
        let publish = try await measure(
            benchmark, common, ["PUBLISH", "trip:__rand_int__", publishPayload], server: pid)
        return (geoadd, publish, version)
    }

    /// Runs one test and reads its CSV line.
    private func measure(_ benchmark: String, _ common: [String], _ command: [String], server: Int32)
        async throws(BenchError) -> Figure
    {
        let before = ProcessUsage.of(pid: server)
        let (status, output) = await ExternalCommand.run(benchmark, common + command)
        let after = ProcessUsage.of(pid: server)
        let shown = command.map { $0.count > 40 ? "<\($0.utf8.count)-byte payload>" : $0 }.joined(separator: " ")
        guard status == 0, var figure = Self.parse(output, command: shown) else {
            throw BenchError("redis-benchmark \(shown) failed (status \(status)): \(output.suffix(300))")
        }
        if let before, let after {
            figure.serverCpuMicrosPerRequest =
                ((after.cpuSeconds - before.cpuSeconds) * 1e6 / Double(requests)).rounded(toPlaces: 2)
        }
        return figure
    }

    /// The figures in redis-benchmark's `--csv` output: a header, then
    /// `"name","rps","avg","min","p50","p95","p99","max"`. The name may hold commas; the numbers never do.
    static func parse(_ output: String, command: String) -> Figure? {
        guard let line = output.split(separator: "\n").last(where: { !$0.hasPrefix("\"test\"") && $0.contains(",") })
        else { return nil }
        let fields = line.split(separator: ",").suffix(7).map { Double($0.trimmingCharacters(in: ["\""])) }
        guard fields.count == 7, let rps = fields[0], let p50 = fields[3], let p99 = fields[5], let max = fields[6]
        else { return nil }
        return Figure(command: command, requestsPerSecond: rps, p50Ms: p50, p99Ms: p99, maxMs: max)
    }
}
