import Foundation
import HailNet
import HailProcess
import HailScale

extension IngestBenchmark {
    /// The servers an ingest run measures.
    public enum Servers: Sendable {
        /// `hail server` children started for the run (the default), so their CPU and memory are their own:
        /// `nodes` of them (1 to 4), on the scaled backends when `postgres`/`redis` are given (several nodes need
        /// both), each with `loops` event loops (default: one per core of its share).
        case children(nodes: Int = 1, postgres: String? = nil, redis: String? = nil, loops: Int? = nil)
        /// The real server in this process, on a temporary database.
        case inProcess
        /// A server already running at `url` (`http://HOST:PORT`); `secretFile` (its secret, or its key set's private
        /// key) signs the drivers' tokens.
        case running(url: String, secretFile: String?)
    }

    /// Descriptors kept free beside the drivers' connections: the listener, the database, HTTP connections and
    /// the runtime's own files.
    static let descriptorReserve = 200

    /// Runs against `servers`: starts what they need, measures, and stops what it started, on success or not.
    public func run(_ servers: Servers = .children()) async throws(BenchError) -> IngestBenchmarkResult {
        // In process, each connection costs two descriptors here: the client's end and the server's.
        if case .inProcess = servers {
            try checkDescriptors(perConnection: 2)
        } else {
            try checkDescriptors(perConnection: 1)
        }
        switch servers {
        case .inProcess:
            let target = try await BenchTarget.startInProcess()
            do {
                let result = try await run(on: target)
                await target.shutdown()
                return result
            } catch {
                await target.shutdown()
                throw error
            }
        case .running(let url, let secretFile):
            let target = try BenchTarget.remote(url: url, secretFile: secretFile)
            guard target.canMintTokens else {
                throw .invalidOption("this benchmark signs tokens: pass the server's --secret-file with --server")
            }
            return try await run(on: target)
        case .children(let nodes, let postgres, let redis, let loops):
            return try await runOnChildren(nodes: nodes, postgres: postgres, redis: redis, loops: loops)
        }
    }

    private func checkDescriptors(perConnection: Int) throws(BenchError) {
        let descriptors = FileDescriptorLimit.raiseToMaximum()
        let needed = connections * perConnection + Self.descriptorReserve
        guard needed <= descriptors else {
            throw .invalidOption(
                "--connections \(connections) needs about \(needed) open files and this process may have "
                    + "\(descriptors) (ulimit -n); use at most \((descriptors - Self.descriptorReserve) / perConnection)"
            )
        }
    }

    private func runOnChildren(
        nodes: Int, postgres: String?, redis: String?, loops: Int?
    ) async throws(BenchError) -> IngestBenchmarkResult {
        guard (1...4).contains(nodes) else { throw .invalidOption("--nodes must be 1 to 4, not \(nodes)") }
        if nodes > 1, postgres == nil || redis == nil {
            throw .invalidOption("--nodes \(nodes) needs --postgres URL and --redis URL: the nodes share them")
        }
        var arguments: [String] = []
        if let postgres { arguments += ["--postgres", postgres] }
        if let redis { arguments += ["--redis", redis] }
        // Several nodes on one machine share its cores as separate machines would: each gets its share (at least
        // one) to run on and as many loops, so the nodes' loops do not all pin to the same cores.
        let cores = ProcessorAffinity.allowed
        let share = max(1, cores.count / nodes)
        let placement = { (node: Int) -> [Int] in
            guard nodes > 1, !cores.isEmpty else { return [] }
            return (0..<share).map { cores[(node * share + $0) % cores.count] }
        }
        if let loops {
            arguments += ["--loops", String(loops)]
        } else if nodes > 1 {
            arguments += ["--loops", String(share)]
        }
        // A peer closing mid-write must become an error on that connection, not kill the benchmark.
        signal(SIGPIPE, SIG_IGN)
        var servers: [ServerProcess] = []
        var backends: Backends?
        do throws(BenchError) {
            let first = try await ServerProcess.start(
                executable: hailExecutable, extraArguments: arguments, processors: placement(0))
            servers.append(first)
            // The other nodes share the first one's secret and key set, so every token works on every node.
            while servers.count < nodes {
                servers.append(
                    try await ServerProcess.start(
                        executable: hailExecutable, extraArguments: arguments, peer: first,
                        processors: placement(servers.count)))
            }
            if let postgres, let redis {
                do {
                    backends = Backends(
                        redis: RedisClient(endpoint: try RedisEndpoint(url: redis), size: 1),
                        postgres: try await PostgresPool.connect(url: postgres, size: 1, migrations: []))
                } catch {
                    throw BenchError("cannot read the backends' counters: \(error)")
                }
            }
            var targets: [Node] = []
            for child in servers {
                targets.append(
                    Node(
                        target: try BenchTarget.remote(
                            url: "http://127.0.0.1:\(child.port)", secretFile: first.tokenFile),
                        server: child))
            }
            let result = try await run(on: targets, backends: backends)
            backends?.redis.close()
            backends?.postgres.close()
            for child in servers { await child.stop() }
            return result
        } catch {
            backends?.redis.close()
            backends?.postgres.close()
            for child in servers { await child.stop() }
            throw error
        }
    }
}
