import Foundation

/// `hail bench http`: N keep-alive connections, each issuing one request after another for a fixed time.
///
/// Closed loop on purpose: each connection waits for its answer before the next request, so the
/// figure is what the server sustains at this concurrency, and latency is queueing plus service.
public struct HTTPBenchmark: Sendable {
    /// Concurrent keep-alive connections (one thread each).
    public var connections = 8
    /// How long to send.
    public var seconds = 10
    /// The request repeated.
    public var route = HTTPRoute.healthz
    /// Requests the ordinary kept-alive client (URLSession, one connection) sends in a row after the run; 0: none.
    public var keptAliveRequests = 200

    /// The defaults: 8 connections on `/healthz` for 10 s.
    public init() {}

    /// Runs against `target` and returns what was measured.
    public func run(on target: BenchTarget) async -> HTTPBenchmarkResult {
        let machine = BenchMachine.current()
        let request = route.request(on: target)
        let endpoint = target.endpoint
        let clock = ContinuousClock()
        let before = ProcessUsage.current()
        let started = clock.now
        let deadline = started + .seconds(seconds)
        let tallies = await BlockingThreads.run(count: connections) { _ in
            Self.drive(endpoint: endpoint, request: request, until: deadline)
        }
        let elapsed = clock.now - started
        let after = ProcessUsage.current()
        var total = HTTPWorkerTally()
        for tally in tallies { total.absorb(tally) }
        var keptAlive: (latencies: [UInt32], failures: Int)?
        if keptAliveRequests > 0 {
            keptAlive = await KeptAliveClientRun.measure(route.urlRequest(on: target), count: keptAliveRequests)
        }
        return HTTPBenchmarkResult(
            settings: self, target: target, tally: total, elapsed: elapsed, before: before, after: after,
            machine: machine, keptAlive: keptAlive)
    }

    /// One connection's loop: request, wait, record, again; reconnects after a failure.
    static func drive(endpoint: HTTPEndpoint, request: [UInt8], until deadline: ContinuousClock.Instant)
        -> HTTPWorkerTally
    {
        let clock = ContinuousClock()
        var tally = HTTPWorkerTally()
        tally.latencies.reserveCapacity(1 << 16)
        var connection: HTTPConnection?
        while clock.now < deadline {
            if connection == nil {
                do {
                    connection = try HTTPConnection(to: endpoint)
                    tally.connections += 1
                } catch {
                    tally.failures["connect \(error.label)", default: 0] += 1
                    // Do not spin on a refused port; the deadline still ends the loop.
                    Thread.sleep(forTimeInterval: 0.05)
                    continue
                }
            }
            let began = clock.now
            do {
                let reply = try connection!.exchange(request)
                tally.latencies.append(LatencySummary.microseconds(clock.now - began))
                tally.statuses[reply.status, default: 0] += 1
                if reply.closes { connection = nil }
            } catch {
                tally.failures[error.label, default: 0] += 1
                connection = nil
            }
        }
        return tally
    }
}
