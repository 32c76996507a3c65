import Foundation

/// Durations in tenths of a second, counted in bins so an hour of frames costs a fixed amount of memory;
/// percentiles are read back to the tenth.
public struct SecondsHistogram: Sendable, Hashable {
    private var bins: [Int]
    /// How many durations were added.
    public private(set) var count = 0
    /// The longest duration added, in seconds.
    public private(set) var maximum = 0.0

    /// An empty histogram holding up to `limit` seconds (longer durations land in the last bin).
    public init(limit: Double = 600) { bins = Array(repeating: 0, count: Int(limit * 10) + 1) }

    /// Adds one duration; negative ones count as zero.
    public mutating func add(_ seconds: Double) {
        let clamped = max(0, seconds)
        bins[min(bins.count - 1, Int((clamped * 10).rounded()))] += 1
        count += 1
        maximum = max(maximum, clamped)
    }

    /// Adds every duration of `other`.
    public mutating func merge(_ other: SecondsHistogram) {
        for index in other.bins.indices where index < bins.count { bins[index] += other.bins[index] }
        count += other.count
        maximum = max(maximum, other.maximum)
    }

    /// How many durations fell in each whole second from 0 up to `seconds`: entry i counts [i, i + 1) s, and the
    /// last entry everything from `seconds` on.
    public func perSecond(upTo seconds: Int) -> [Int] {
        var counts = Array(repeating: 0, count: seconds + 1)
        for (index, inBin) in bins.enumerated() where inBin > 0 { counts[min(seconds, index / 10)] += inBin }
        return counts
    }

    /// The smallest duration at or below which `fraction` of the durations lie, nil when empty.
    public func percentile(_ fraction: Double) -> Double? {
        guard count > 0 else { return nil }
        let rank = max(1, Int((Double(count) * fraction).rounded(.up)))
        var seen = 0
        for (index, inBin) in bins.enumerated() {
            seen += inBin
            if seen >= rank { return Double(index) / 10 }
        }
        return Double(bins.count - 1) / 10
    }
}
