import Foundation
import HailBench

/// `hail bench`: measured throughput of this machine, for docs/BENCHMARKS.md.
enum BenchCommand {
    /// The help text, also printed after a usage mistake.
    static let usage = """
        usage: hail bench http        [--route healthz|estimates] [--connections 8] [--seconds 10] [common options]
               hail bench ingest      [--connections 100] [--interval-ms 3000 | --saturate [--window 1]]
                                      [--points 3] [--binary] [--riders 0.1] [--duration 10] [--in-process] [common]
               hail bench wire        [--trace FILE] [--json]
               hail bench connections [--count 1000] [--hold 5] [--json]
               hail bench baseline    [--clients 100] [--requests 200000] [--pipeline 1]
                                      [--seconds 10 | --ingest-json FILE] [--json]
               hail bench route       [--map FILE.osm.pbf] [--routes 2000] [--traces 50] [--json]
               hail bench match       [--kubicka DIR] [--json]
               hail bench client      [--frames 1000000] [--applies 1000000] [--hours 10] [--json]
               hail bench edge        [--threads 2] [--connections 8] [--seconds 5] [--json]
               hail bench restarts    --postgres URL --redis URL [--drivers 8000] [--riders 800] [--settle 10]
                                      [--drain-grace 1] [--drain-spread 5] [--drain-rate 400] [--drain-seconds 30]
                                      [--kill-only] [--json]

        Each prints a table, or with --json exactly one JSON object. None asserts a time.

          http         keep-alive HTTP/1.1 connections against an in-process server, each sending one
                       request after another: GET /healthz, or with --route estimates an authenticated
                       POST /v1/estimates. Reports requests/s, p50/p99 latency and answers by status, then
                       the latency of an ordinary kept-alive client (URLSession, as the apps use it: one
                       connection, one request after another).
          ingest       drivers go online, open /v1/drivers/me/live and send location batches, each awaiting
                       its ack, against `hail server` started as a child process (--in-process: in this
                       process, as before). Reports acknowledged fixes/s, send-to-ack p50/p99/p99.9, batches
                       never acked, the server's CPU and RSS and the load generator's.
          wire         bytes per fix as JSON and as the binary batch, one fix per frame and batched by the
                       driver pipeline at each policy, and the upload per 10-hour shift, on the real Munich
                       drive (../shared/data), against the design's 50 B/update and 450 KB/shift and the
                       targets of 12 B/fix in batches and 110 KB/shift.
          connections  holds --count idle driver streams on a `hail server` child process, spread over
                       127.0.0.x source addresses; reports the time to connect them and the server's RSS per
                       connection (the open-file limit caps the count; the table says what stopped it).
          baseline     redis-benchmark GEOADD and PUBLISH on a throwaway redis-server with the same
                       concurrency, beside a short saturating ingest run (or --ingest-json FILE), as ratios.
          route        route/ETA queries and snaps per second on the Monaco graph, and map matching.
          match        the map matcher on real drives with known routes (Kubicka et al. 2015, default
                       ../shared/data/traces/kubicka-open-data): route error, recovered and precision at
                       every fix and every 5th, 15th and 30th, and fixes/s on one thread.
          client       ns per glide frame and per trip state-machine apply in the rider core, and RSS of
                       the rider and driver cores over a simulated 10-hour shift.
          edge         wrk (Debian) with kept-alive connections against a `hail server` child (rate limits
                       off) on GET /healthz, POST /v1/estimates and GET /v1/trips/active, and against nginx
                       (Debian) answering a fixed 200, started and stopped by the command, in the same run:
                       requests/s, p50, p99 and the ratio to nginx. Needs wrk and nginx (scripts/setup.sh).
          restarts     two scaled `hail server` children (a PostgreSQL schema and Redis prefix of the run's
                       own) behind a throwaway nginx, --drivers streams sending a batch a second and --riders
                       watching their trips, reconnecting as the apps do; a rolling restart (node 1 drained
                       with SIGTERM, started, then node 2; a tap on every trip during each drain), then a
                       SIGKILL of the node holding the streams. Reports acknowledged batches lost, trip
                       events lost or doubled, the riders' longest gap without a position (p50/p99) and the
                       time until every driver stream is back and acknowledged after the kill, and each
                       process's CPU. --kill-only: the kill alone (node 2 starts once node 1 holds them all).

          --seconds      how long to measure, 1 to 600 (--duration is the same)   default 10
          --connections  http: keep-alive connections (1-512); ingest: drivers   default 8 / 100
                         (1-20000; over 1000 are spread over 127.0.0.2... source addresses)
          --route        http: healthz or estimates                             default healthz
          --interval-ms  ingest: one batch per driver every N ms (10-60000)     default 3000
          --saturate     ingest: instead, send the next batch as soon as an ack returns (the ceiling)
          --window       ingest with --saturate: batches in flight per driver   default 1
          --points       ingest: fixes per batch, 1 to 1000                     default 3
          --binary       ingest: compact binary frames instead of JSON text
          --riders       ingest: share of drivers on a trip with a rider watching   default 0.1
          --server-loops ingest: the `hail server` child's --loops    default one per core (its share with --nodes)
          --postgres URL, --redis URL   ingest: the server children run on the scaled backends
          --nodes N      ingest: 1 to 4 server children on them, drivers on every node, each rider on
                         another node than its driver, each node on its share of the cores; reports
                         Redis commands per batch and PostgreSQL transactions/s from the backends' own counters
          --json         print one JSON object instead of the table
          --server URL   measure a running server (http://HOST:PORT) instead of starting one
          --secret-file  with --server: what mints its tokens (needed for ingest and --route estimates): a
                         --postgres/--redis server's signing key (the PEM `hail keys` wrote for its --jwks),
                         or an embedded server's secret file
        """

    /// The benchmarks there are.
    static let kinds = [
        "http", "ingest", "wire", "connections", "baseline", "route", "match", "client", "edge", "restarts",
    ]

    /// Parses the options, runs the benchmark asked for and prints its result.
    static func run(_ arguments: [String]) async throws(UsageError) {
        let names = kinds.joined(separator: ", ")
        guard let kind = arguments.first, kinds.contains(kind) else {
            throw UsageError(
                arguments.first.map { "unknown benchmark '\($0)' (\(names))" } ?? "say which benchmark: \(names)")
        }
        let rest = Array(arguments.dropFirst())
        switch kind {
        case "wire": return try await runWire(rest)
        case "connections": return try await runConnections(rest)
        case "baseline": return try await runBaseline(rest)
        case "route": return try await runRoute(rest)
        case "match": return try await runMatch(rest)
        case "client": return try await runClient(rest)
        case "edge": return try await runEdge(rest)
        case "restarts": return try await runRestarts(rest)
        default: break
        }
        let args = try Arguments(
            Array(arguments.dropFirst()),
            options: [
                "--seconds", "--duration", "--connections", "--route", "--interval-ms", "--window", "--points",
                "--server", "--secret-file", "--riders", "--postgres", "--redis", "--nodes", "--server-loops",
            ],
            flags: ["--json", "--binary", "--saturate", "--in-process"])
        if args["--seconds"] != nil, args["--duration"] != nil {
            throw UsageError("--duration and --seconds are the same option; give one")
        }
        let seconds = try args.integer(
            args["--duration"] != nil ? "--duration" : "--seconds", default: 10, in: 1...600)
        if args["--secret-file"] != nil, args["--server"] == nil {
            throw UsageError("--secret-file goes with --server (the in-process server makes its own secret)")
        }
        if kind == "http" {
            for name in ["--interval-ms", "--window", "--points"] where args[name] != nil {
                throw UsageError("\(name) is an ingest option")
            }
            for flag in ["--binary", "--saturate"] where args.has(flag) {
                throw UsageError("\(flag) is an ingest option")
            }
            var benchmark = HTTPBenchmark()
            benchmark.seconds = seconds
            benchmark.connections = try args.integer("--connections", default: 8, in: 1...512)
            if let name = args["--route"] {
                guard let route = HTTPRoute(rawValue: name) else {
                    throw UsageError("--route must be healthz or estimates, not '\(name)'")
                }
                benchmark.route = route
            }
            let target = try await target(args, needsTokens: benchmark.route == .estimates)
            let result = await benchmark.run(on: target)
            await target.shutdown()
            report(result, table: result.table, json: args.has("--json"))
        } else {
            if args["--route"] != nil { throw UsageError("--route is an http option") }
            var benchmark = IngestBenchmark()
            benchmark.seconds = seconds
            benchmark.connections = try args.integer("--connections", default: 100, in: 1...20_000)
            benchmark.pointsPerBatch = try args.integer("--points", default: 3, in: 1...1_000)
            benchmark.binary = args.has("--binary")
            if let share = args["--riders"] {
                guard let value = Double(share), (0...1).contains(value) else {
                    throw UsageError("--riders must be a share of the drivers from 0 to 1, not '\(share)'")
                }
                benchmark.riderShare = value
            }
            if args.has("--saturate") {
                if args["--interval-ms"] != nil { throw UsageError("--saturate and --interval-ms exclude each other") }
                benchmark.pacing = .saturate(window: try args.integer("--window", default: 1, in: 1...256))
            } else {
                if args["--window"] != nil { throw UsageError("--window goes with --saturate") }
                benchmark.pacing = .interval(
                    milliseconds: try args.integer("--interval-ms", default: 3_000, in: 10...60_000))
            }
            if args.has("--in-process"), args["--server"] != nil {
                throw UsageError("--in-process and --server exclude each other")
            }
            let nodes = try args.integer("--nodes", default: 1, in: 1...4)
            let startsChildren = args["--server"] == nil && !args.has("--in-process")
            if !startsChildren, args["--postgres"] != nil || args["--redis"] != nil || nodes > 1 {
                throw UsageError("--postgres, --redis and --nodes start their own `hail server` children")
            }
            if !startsChildren, args["--server-loops"] != nil {
                throw UsageError("--server-loops sets the `hail server` child's --loops; it needs no --server")
            }
            let servers: IngestBenchmark.Servers
            if let url = args["--server"] {
                servers = .running(url: url, secretFile: args["--secret-file"])
            } else if args.has("--in-process") {
                servers = .inProcess
            } else {
                // The default: the server in a child process of its own, so its CPU and RSS are its own.
                let loops =
                    args["--server-loops"] == nil ? nil : try args.integer("--server-loops", default: 1, in: 1...64)
                servers = .children(nodes: nodes, postgres: args["--postgres"], redis: args["--redis"], loops: loops)
            }
            let result = try await outcome { () async throws(BenchError) in try await benchmark.run(servers) }
            report(result, table: result.table, json: args.has("--json"))
        }
    }

    /// The result of `run`, or the process ends: a usage mistake as one (exit 64 with the usage), a run that
    /// could not happen with its reason (exit 1).
    static func outcome<Result>(
        _ run: () async throws(BenchError) -> Result
    ) async throws(UsageError) -> Result {
        do {
            return try await run()
        } catch  where error.code == .invalidOption {
            throw UsageError(error.description)
        } catch {
            failed(error)
        }
    }

    /// The server to measure: `--server` or a fresh in-process one.
    private static func target(_ args: Arguments, needsTokens: Bool) async throws(UsageError) -> BenchTarget {
        // A peer closing mid-write must become an error on that connection, not kill the benchmark.
        signal(SIGPIPE, SIG_IGN)
        if let url = args["--server"] {
            let target = try await outcome { () throws(BenchError) in
                try BenchTarget.remote(url: url, secretFile: args["--secret-file"])
            }
            if needsTokens, !target.canMintTokens {
                throw UsageError("this benchmark signs tokens: pass the server's --secret-file with --server")
            }
            return target
        }
        do {
            return try await BenchTarget.startInProcess()
        } catch {
            failed(error)
        }
    }

    /// Prints the result as the table or as one line of JSON.
    static func report<Result: Encodable>(_ result: Result, table: String, json: Bool) {
        guard json else {
            say(table)
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if let data = try? encoder.encode(result) { say(String(decoding: data, as: UTF8.self)) }
    }

    /// A run that could not happen: message on stderr, exit status 1 (usage mistakes exit 64).
    static func failed(_ failure: BenchError) -> Never {
        try? FileHandle.standardError.write(contentsOf: Data("hail bench: \(failure.description)\n".utf8))
        exit(1)
    }
}
