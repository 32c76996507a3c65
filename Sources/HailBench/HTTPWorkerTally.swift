/// What one load-generator connection saw: latencies of completed requests, statuses, failures.
struct HTTPWorkerTally: Sendable {
    /// Latency of every completed request, in microseconds.
    var latencies: [UInt32] = []
    /// Completed requests by status code.
    var statuses: [Int: Int] = [:]
    /// Requests that got no response, by reason (timeout, closed...).
    var failures: [String: Int] = [:]
    /// Connections opened (1 when keep-alive held throughout).
    var connections = 0

    /// Merges another connection's tally into this one.
    mutating func absorb(_ other: HTTPWorkerTally) {
        latencies += other.latencies
        statuses.merge(other.statuses, uniquingKeysWith: +)
        failures.merge(other.failures, uniquingKeysWith: +)
        connections += other.connections
    }
}
