/// The server's own location counters, read from `GET /metrics` before and after a run, so the
/// report can say how many acknowledged fixes the server's filter actually kept and, in scaled mode, how many
/// batches shared each round trip to Redis.
struct ServerCounters: Sendable {
    /// `hail_location_updates_total` summed over labels other than `result`, by result.
    let locationUpdates: [String: Double]
    /// `hail_redis_ingest_round_trips_total` (zero on an embedded node).
    let redisIngestRoundTrips: Double
    /// `hail_redis_ingest_writes_total` summed over its results.
    let redisIngestWrites: Double

    /// Scrapes `/metrics` on `endpoint` with an operator's `token`; nil when it cannot be read (the figures then go
    /// without it).
    static func scrape(_ endpoint: HTTPEndpoint, token: String) async -> ServerCounters? {
        let request = HTTPRequestBytes.make(
            method: "GET", path: "/metrics", authority: endpoint.authority,
            headers: [("Authorization", "Bearer \(token)")])
        let replies = await BlockingThreads.run(count: 1) { _ -> HTTPReply? in
            try? HTTPConnection(to: endpoint).exchange(request)
        }
        guard let reply = replies.first ?? nil, reply.status == 200 else { return nil }
        return ServerCounters(prometheus: String(decoding: reply.body, as: UTF8.self))
    }

    /// Parses Prometheus text, keeping the `hail_location_updates_total` and Redis ingest samples.
    init(prometheus text: String) {
        var totals: [String: Double] = [:]
        var (roundTrips, writes) = (0.0, 0.0)
        for line in text.split(separator: "\n") where line.hasPrefix("hail_") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            if line.hasPrefix("hail_redis_ingest_round_trips_total ") { roundTrips += value }
            if line.hasPrefix("hail_redis_ingest_writes_total{") { writes += value }
            guard line.hasPrefix("hail_location_updates_total{") else { continue }
            var result = "unknown"
            if let range = line.range(of: #"result=""#) {
                result = String(line[range.upperBound...].prefix { $0 != "\"" })
            }
            totals[result, default: 0] += value
        }
        locationUpdates = totals
        (redisIngestRoundTrips, redisIngestWrites) = (roundTrips, writes)
    }

    /// Round trips and writes to Redis's ingest pipeline between `earlier` and now.
    func redisIngestSince(_ earlier: ServerCounters) -> (roundTrips: Int, writes: Int) {
        (
            Int((redisIngestRoundTrips - earlier.redisIngestRoundTrips).rounded()),
            Int((redisIngestWrites - earlier.redisIngestWrites).rounded())
        )
    }

    /// What was added between `earlier` and now, by result, dropping results that did not move.
    func since(_ earlier: ServerCounters) -> [String: Int] {
        var delta: [String: Int] = [:]
        for (result, value) in locationUpdates {
            let added = Int((value - (earlier.locationUpdates[result] ?? 0)).rounded())
            if added != 0 { delta[result] = added }
        }
        return delta
    }
}
