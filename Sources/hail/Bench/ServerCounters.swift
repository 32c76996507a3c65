/// The server's own location counters, read from `GET /metrics` before and after a run, so the
/// report can say how many acknowledged fixes the server's filter actually kept.
struct ServerCounters: Sendable {
    /// `hail_location_updates_total` summed over labels other than `result`, by result.
    let locationUpdates: [String: Double]

    /// Scrapes `/metrics` on `endpoint`; nil when it cannot be read (the figures then go without it).
    static func scrape(_ endpoint: HTTPEndpoint) async -> ServerCounters? {
        let request = HTTPRequestBytes.make(method: "GET", path: "/metrics", authority: endpoint.authority)
        let replies = await BlockingThreads.run(count: 1) { _ -> HTTPReply? in
            try? HTTPConnection(to: endpoint).exchange(request)
        }
        guard let reply = replies.first ?? nil, reply.status == 200 else { return nil }
        return ServerCounters(prometheus: String(decoding: reply.body, as: UTF8.self))
    }

    /// Parses Prometheus text, keeping the `hail_location_updates_total` samples.
    init(prometheus text: String) {
        var totals: [String: Double] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("hail_location_updates_total{") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            var result = "unknown"
            if let range = line.range(of: #"result=""#) {
                result = String(line[range.upperBound...].prefix { $0 != "\"" })
            }
            totals[result, default: 0] += value
        }
        locationUpdates = totals
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
