/// Percentiles of a set of latencies, in milliseconds.
public struct LatencySummary: Encodable, Sendable {
    /// How many samples.
    public let count: Int
    /// Median.
    public let p50Ms: Double
    /// 99th percentile.
    public let p99Ms: Double
    /// 99.9th percentile.
    public let p999Ms: Double
    /// Slowest sample.
    public let maxMs: Double

    /// Summarizes samples given in microseconds (nearest-rank percentiles; zeros when empty).
    init(microseconds samples: [UInt32]) {
        let sorted = samples.sorted()
        count = sorted.count
        /// The sample at `fraction` by nearest rank, in milliseconds.
        func rank(_ fraction: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let index = min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))
            return Double(sorted[index]) / 1000
        }
        p50Ms = rank(0.50)
        p99Ms = rank(0.99)
        p999Ms = rank(0.999)
        maxMs = Double(sorted.last ?? 0) / 1000
    }

    /// `elapsed` in whole microseconds, saturated to fit a `UInt32` (71 minutes).
    static func microseconds(_ elapsed: Duration) -> UInt32 {
        let parts = elapsed.components
        let micros = parts.seconds * 1_000_000 + parts.attoseconds / 1_000_000_000_000
        return UInt32(clamping: max(0, micros))
    }
}
