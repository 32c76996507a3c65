/// What one `wrk --latency` run printed, read from its text output.
public struct WrkFigures: Encodable, Sendable, Equatable {
    /// Requests completed (any status).
    public let requests: Int
    /// Seconds wrk measured over.
    public let seconds: Double
    /// wrk's `Requests/sec`.
    public let requestsPerSecond: Double
    /// Median latency, ms (wrk's latency distribution).
    public let p50Ms: Double
    /// 99th percentile latency, ms.
    public let p99Ms: Double
    /// Slowest request, ms.
    public let maxMs: Double
    /// Answers with a status outside 2xx and 3xx.
    public let non2xx: Int
    /// Connect, read and write errors and timeouts together.
    public let socketErrors: Int

    /// Reads wrk's report: `Latency avg stdev max`, the `--latency` distribution (50% and 99%),
    /// `N requests in Ts`, optional `Non-2xx or 3xx responses: N` and `Socket errors: connect a, read b, write c,
    /// timeout d`, and `Requests/sec: R`. Nil when a figure is missing (wrk failed, or ran without `--latency`).
    public static func parse(_ output: String) -> WrkFigures? {
        var requests: Int?
        var seconds: Double?
        var rate: Double?
        var p50: Double?
        var p99: Double?
        var max: Double?
        var non2xx = 0
        var socketErrors = 0
        for rawLine in output.split(separator: "\n") {
            let words = rawLine.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = words.first else { continue }
            switch first {
            case "Latency" where words.count >= 4:
                max = milliseconds(words[3])
            case "50%" where words.count >= 2:
                p50 = milliseconds(words[1])
            case "99%" where words.count >= 2:
                p99 = milliseconds(words[1])
            case "Requests/sec:" where words.count >= 2:
                rate = Double(words[1])
            case "Non-2xx" where words.count >= 5:
                non2xx = Int(words[4]) ?? 0
            case "Socket" where words.count >= 2 && words[1] == "errors:":
                socketErrors = words.compactMap { Int($0.filter(\.isNumber)) }.reduce(0, +)
            default:
                if words.count >= 4, words[1] == "requests", words[2] == "in", let count = Int(first) {
                    requests = count
                    seconds = Double(words[3].dropLast(words[3].hasSuffix("s,") ? 2 : 1))
                }
            }
        }
        guard let requests, let seconds, let rate, let p50, let p99, let max else { return nil }
        return WrkFigures(
            requests: requests, seconds: seconds, requestsPerSecond: rate, p50Ms: p50, p99Ms: p99, maxMs: max,
            non2xx: non2xx, socketErrors: socketErrors)
    }

    /// wrk's time with its unit (`463.00us`, `1.02ms`, `2.50s`, `1.00m`) in milliseconds.
    static func milliseconds(_ text: Substring) -> Double? {
        let units: [(suffix: String, scale: Double)] = [("us", 0.001), ("ms", 1), ("s", 1000), ("m", 60_000)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            return Double(text.dropLast(suffix.count)).map { $0 * scale }
        }
        return nil
    }
}
