import Foundation
import HailNet

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The latency an ordinary kept-alive client sees: URLSession (what the apps' `HTTPTransport` uses), one
/// connection, one request after another, each awaited before the next.
///
/// The load generator of `hail bench http` is a hand-made client tuned to measure the server; this one is the
/// kind a user has, and it is what showed the 40 ms keep-alive stall (a response in two writes meeting the
/// client's delayed ACK).
enum KeptAliveClientRun {
    /// Sends `request` `count` times in a row on one kept-alive URLSession connection; the latencies (µs) of those
    /// answered and the count of failures.
    static func measure(_ request: URLRequest, count: Int) async -> (latencies: [UInt32], failures: Int) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 1
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let clock = ContinuousClock()
        var latencies: [UInt32] = []
        var failures = 0
        // One request first to open the connection: what follows is the kept-alive case.
        _ = try? await session.dataRunningToCompletion(for: request)
        for _ in 0..<count {
            let began = clock.now
            if (try? await session.dataRunningToCompletion(for: request)) != nil {
                latencies.append(LatencySummary.microseconds(clock.now - began))
            } else {
                failures += 1
            }
        }
        return (latencies, failures)
    }
}
