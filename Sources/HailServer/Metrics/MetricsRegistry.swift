import Foundation
import Synchronization

/// Counters, gauges and histograms rendered in the Prometheus text format (version 0.0.4).
///
/// Thread-safe behind one lock; an update is a dictionary write, cheap enough for every location update.
public final class MetricsRegistry: Sendable {
    /// A metric's labels, rendered in the given order.
    public typealias Labels = KeyValuePairs<String, String>

    private struct Series: Hashable {
        var name: String
        var labels: [String]  // "key=value" pairs, already escaped, in order
    }

    private struct Histogram {
        var buckets: [Double]
        var counts: [UInt64]
        var sum = 0.0
        var count: UInt64 = 0
    }

    private struct State {
        var help: [String: (type: String, text: String)] = [:]
        var values: [Series: Double] = [:]
        var histograms: [Series: Histogram] = [:]
        var bucketsByName: [String: [Double]] = [:]
    }

    private let state = Mutex(State())

    /// Creates an empty registry.
    public init() {}

    /// Declares a metric's type (`counter`, `gauge`, `histogram`) and help text; buckets for histograms.
    public func declare(_ name: String, type: String, help: String, buckets: [Double] = []) {
        state.withLock {
            $0.help[name] = (type, help)
            if !buckets.isEmpty { $0.bucketsByName[name] = buckets.sorted() }
        }
    }

    /// Adds `amount` to a counter or gauge.
    public func add(_ name: String, _ amount: Double = 1, labels: Labels = [:]) {
        let series = Series(name: name, labels: Self.render(labels))
        state.withLock { $0.values[series, default: 0] += amount }
    }

    /// Sets a gauge.
    public func set(_ name: String, _ value: Double, labels: Labels = [:]) {
        let series = Series(name: name, labels: Self.render(labels))
        state.withLock { $0.values[series] = value }
    }

    /// The current value of a counter or gauge (0 when never touched).
    public func value(_ name: String, labels: Labels = [:]) -> Double {
        let series = Series(name: name, labels: Self.render(labels))
        return state.withLock { $0.values[series] ?? 0 }
    }

    /// Records one observation in a histogram declared with buckets.
    public func observe(_ name: String, _ value: Double, labels: Labels = [:]) {
        let series = Series(name: name, labels: Self.render(labels))
        state.withLock { state in
            let buckets = state.bucketsByName[name] ?? [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5]
            var histogram =
                state.histograms[series]
                ?? Histogram(buckets: buckets, counts: Array(repeating: 0, count: buckets.count))
            for (index, bound) in histogram.buckets.enumerated() where value <= bound { histogram.counts[index] += 1 }
            histogram.sum += value
            histogram.count += 1
            state.histograms[series] = histogram
        }
    }

    /// How many observations a histogram series has.
    public func observationCount(_ name: String, labels: Labels = [:]) -> UInt64 {
        let series = Series(name: name, labels: Self.render(labels))
        return state.withLock { $0.histograms[series]?.count ?? 0 }
    }

    /// Every metric in the Prometheus text exposition format, sorted by name then labels.
    public func render() -> String {
        state.withLock { state in
            var names = Set(state.values.keys.map(\.name)).union(state.histograms.keys.map(\.name))
            names.formUnion(state.help.keys)
            var output = ""
            for name in names.sorted() {
                if let help = state.help[name] {
                    output += "# HELP \(name) \(help.text)\n# TYPE \(name) \(help.type)\n"
                }
                let plain = state.values.filter { $0.key.name == name }.sorted {
                    $0.key.labels.lexicographicallyPrecedes($1.key.labels)
                }
                for (series, value) in plain {
                    output += "\(name)\(Self.braces(series.labels)) \(Self.format(value))\n"
                }
                let histograms = state.histograms.filter { $0.key.name == name }.sorted {
                    $0.key.labels.lexicographicallyPrecedes($1.key.labels)
                }
                for (series, histogram) in histograms {
                    for (index, bound) in histogram.buckets.enumerated() {
                        let labels = series.labels + ["le=\"\(Self.format(bound))\""]
                        output += "\(name)_bucket\(Self.braces(labels)) \(histogram.counts[index])\n"
                    }
                    output += "\(name)_bucket\(Self.braces(series.labels + ["le=\"+Inf\""])) \(histogram.count)\n"
                    output += "\(name)_sum\(Self.braces(series.labels)) \(Self.format(histogram.sum))\n"
                    output += "\(name)_count\(Self.braces(series.labels)) \(histogram.count)\n"
                }
            }
            return output
        }
    }

    private static func render(_ labels: Labels) -> [String] {
        labels.map { "\($0.key)=\"\(escape($0.value))\"" }
    }

    private static func braces(_ labels: [String]) -> String {
        labels.isEmpty ? "" : "{" + labels.joined(separator: ",") + "}"
    }

    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    private static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
