import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Counters, gauges and histograms rendered in the Prometheus text format (version 0.0.4).
///
/// Updated on the hot path (every location batch of every driver, from every network loop), so an update
/// neither renders nor escapes anything (labels are kept raw and rendered at scrape time) and takes one of
/// several locks, picked by the calling thread: the loops update side by side, and `render` and `value`
/// add the stripes up.
public final class MetricsRegistry: Sendable {
    /// A metric's labels, rendered in the given order.
    public typealias Labels = KeyValuePairs<String, String>

    private struct Series: Hashable, Sendable {
        var name: String
        /// Label names and values, raw, alternating, in order.
        var labels: [String]

        init(_ name: String, _ labels: Labels) {
            self.name = name
            var flat: [String] = []
            flat.reserveCapacity(labels.count * 2)
            for (key, value) in labels {
                flat.append(key)
                flat.append(value)
            }
            self.labels = flat
        }

        /// `key="value"` pairs, escaped, in order.
        var rendered: [String] {
            stride(from: 0, to: labels.count, by: 2).map {
                "\(labels[$0])=\"\(MetricsRegistry.escape(labels[$0 + 1]))\""
            }
        }
    }

    fileprivate struct Histogram: Sendable {
        var buckets: [Double]
        var counts: [UInt64]
        var sum = 0.0
        var count: UInt64 = 0

        mutating func absorb(_ other: Histogram) {
            for index in counts.indices where index < other.counts.count { counts[index] += other.counts[index] }
            sum += other.sum
            count += other.count
        }
    }

    private struct Values: Sendable {
        var counters: [Series: Double] = [:]
        var gauges: [Series: Double] = [:]
        var histograms: [Series: Histogram] = [:]
    }

    private final class Stripe: Sendable {
        let values = Mutex(Values())
    }

    private struct Declarations: Sendable {
        var help: [String: (type: String, text: String)] = [:]
        var bucketsByName: [String: [Double]] = [:]
    }

    /// A counter or gauge series resolved once (`counter(_:labels:)`): adding to it is one atomic
    /// compare-and-swap, with no labels to copy or hash and no lock.
    public final class Counter: Sendable {
        /// The value's bits (`Double.bitPattern`), so it can be added to atomically.
        private let bits = Atomic<UInt64>(0.0.bitPattern)

        fileprivate init() {}

        /// Adds `amount` (negative for a gauge going down).
        public func add(_ amount: Double = 1) {
            var current = bits.load(ordering: .relaxed)
            while true {
                let (exchanged, found) = bits.compareExchange(
                    expected: current, desired: (Double(bitPattern: current) + amount).bitPattern,
                    ordering: .relaxed)
                if exchanged { return }
                current = found
            }
        }

        /// The current value.
        public var value: Double { Double(bitPattern: bits.load(ordering: .relaxed)) }
    }

    /// A histogram series resolved once (`histogram(_:labels:)`): an observation takes only its own lock.
    public final class HistogramSeries: Sendable {
        fileprivate let histogram: Mutex<Histogram>

        fileprivate init(buckets: [Double]) {
            histogram = Mutex(Histogram(buckets: buckets, counts: Array(repeating: 0, count: buckets.count)))
        }

        /// Records one observation.
        public func observe(_ value: Double) {
            histogram.withLock { MetricsRegistry.record(value, in: &$0) }
        }
    }

    private struct Handles: Sendable {
        var counters: [Series: Counter] = [:]
        var histograms: [Series: HistogramSeries] = [:]
    }

    private let declarations = Mutex(Declarations())
    private let stripes: [Stripe] = (0..<16).map { _ in Stripe() }
    /// Run at the start of every `render`: gauges read from elsewhere at scrape time (`addCollector`).
    private let collectors = Mutex<[@Sendable (MetricsRegistry) -> Void]>([])
    private let handles = Mutex(Handles())
    /// Gauges that are set (not added to) live in one place, so the last `set` wins.
    private let setGauges = Mutex<[Series: Double]>([:])

    /// Creates an empty registry.
    public init() {}

    /// Has `collect` set its gauges at the start of every `render` (values another layer keeps, read when scraped).
    public func addCollector(_ collect: @escaping @Sendable (MetricsRegistry) -> Void) {
        collectors.withLock { $0.append(collect) }
    }

    /// The calling thread's stripe.
    private var stripe: Stripe {
        #if canImport(Darwin)
            let thread = UInt(bitPattern: pthread_self())
        #else
            let thread = UInt(pthread_self())
        #endif
        // Thread ids are addresses: drop the low bits every id shares.
        return stripes[Int((thread >> 12) % UInt(stripes.count))]
    }

    /// Declares a metric's type (`counter`, `gauge`, `histogram`) and help text; buckets for histograms.
    public func declare(_ name: String, type: String, help: String, buckets: [Double] = []) {
        declarations.withLock {
            $0.help[name] = (type, help)
            if !buckets.isEmpty { $0.bucketsByName[name] = buckets.sorted() }
        }
    }

    /// The handle of a counter or gauge series, the same one for the same name and labels: for a hot path that
    /// adds to one series again and again, resolved once and kept.
    public func counter(_ name: String, labels: Labels = [:]) -> Counter {
        let series = Series(name, labels)
        return handles.withLock { handles in
            if let counter = handles.counters[series] { return counter }
            let counter = Counter()
            handles.counters[series] = counter
            return counter
        }
    }

    /// The handle of a histogram series declared with buckets, the same one for the same name and labels.
    public func histogram(_ name: String, labels: Labels = [:]) -> HistogramSeries {
        let series = Series(name, labels)
        let buckets = declarations.withLock { $0.bucketsByName[name] } ?? Self.defaultBuckets
        return handles.withLock { handles in
            if let histogram = handles.histograms[series] { return histogram }
            let histogram = HistogramSeries(buckets: buckets)
            handles.histograms[series] = histogram
            return histogram
        }
    }

    private static let defaultBuckets: [Double] = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5]

    /// Adds `amount` to a counter or gauge.
    public func add(_ name: String, _ amount: Double = 1, labels: Labels = [:]) {
        let series = Series(name, labels)
        stripe.values.withLock { $0.counters[series, default: 0] += amount }
    }

    /// Sets a gauge.
    public func set(_ name: String, _ value: Double, labels: Labels = [:]) {
        let series = Series(name, labels)
        setGauges.withLock { $0[series] = value }
        // A series that was added to before is replaced by the value set.
        for stripe in stripes { _ = stripe.values.withLock { $0.counters.removeValue(forKey: series) } }
    }

    /// The current value of a counter or gauge (0 when never touched).
    public func value(_ name: String, labels: Labels = [:]) -> Double {
        let series = Series(name, labels)
        let added = stripes.reduce(0.0) { total, stripe in total + stripe.values.withLock { $0.counters[series] ?? 0 } }
        let handled = handles.withLock { $0.counters[series]?.value } ?? 0
        return added + handled + (setGauges.withLock { $0[series] } ?? 0)
    }

    /// The sum of every series of a counter or gauge whose labels include `matching` (every series for none):
    /// `total("hail_sessions_total", matching: ["role": "driver"])`. For occasional readers (the operator's live
    /// numbers, once a second), never the hot path: it visits every series.
    public func total(_ name: String, matching: [String: String] = [:]) -> Double {
        func wanted(_ series: Series) -> Bool {
            guard series.name == name else { return false }
            guard !matching.isEmpty else { return true }
            var found = 0
            for index in stride(from: 0, to: series.labels.count, by: 2)
            where matching[series.labels[index]] == series.labels[index + 1] {
                found += 1
            }
            return found == matching.count
        }
        var sum = setGauges.withLock { $0.filter { wanted($0.key) }.values.reduce(0, +) }
        sum += handles.withLock { $0.counters.filter { wanted($0.key) }.map(\.value) }.reduce(0) { $0 + $1.value }
        for stripe in stripes {
            sum += stripe.values.withLock { $0.counters.filter { wanted($0.key) }.values.reduce(0, +) }
        }
        return sum
    }

    /// Records one observation in a histogram declared with buckets.
    public func observe(_ name: String, _ value: Double, labels: Labels = [:]) {
        let series = Series(name, labels)
        let stripe = stripe
        let known = stripe.values.withLock { values -> Bool in
            guard var histogram = values.histograms[series] else { return false }
            Self.record(value, in: &histogram)
            values.histograms[series] = histogram
            return true
        }
        if known { return }
        let buckets = declarations.withLock { $0.bucketsByName[name] } ?? Self.defaultBuckets
        stripe.values.withLock { values in
            var histogram =
                values.histograms[series]
                ?? Histogram(buckets: buckets, counts: Array(repeating: 0, count: buckets.count))
            Self.record(value, in: &histogram)
            values.histograms[series] = histogram
        }
    }

    fileprivate static func record(_ value: Double, in histogram: inout Histogram) {
        for (index, bound) in histogram.buckets.enumerated() where value <= bound { histogram.counts[index] += 1 }
        histogram.sum += value
        histogram.count += 1
    }

    /// How many observations a histogram series has.
    public func observationCount(_ name: String, labels: Labels = [:]) -> UInt64 {
        let series = Series(name, labels)
        let handled = handles.withLock { $0.histograms[series] }?.histogram.withLock { $0.count } ?? 0
        return stripes.reduce(handled) { total, stripe in
            total + (stripe.values.withLock { $0.histograms[series]?.count } ?? 0)
        }
    }

    /// Every stripe and handle added up: a snapshot, so rendering holds no lock.
    private func merged() -> (values: [Series: Double], histograms: [Series: Histogram]) {
        var values = setGauges.withLock { $0 }
        var histograms: [Series: Histogram] = [:]
        let handled = handles.withLock { $0 }
        for (series, counter) in handled.counters { values[series, default: 0] += counter.value }
        for (series, handle) in handled.histograms { histograms[series] = handle.histogram.withLock { $0 } }
        for stripe in stripes {
            stripe.values.withLock { stripe in
                for (series, value) in stripe.counters { values[series, default: 0] += value }
                for (series, histogram) in stripe.histograms {
                    if var merged = histograms[series] {
                        merged.absorb(histogram)
                        histograms[series] = merged
                    } else {
                        histograms[series] = histogram
                    }
                }
            }
        }
        return (values, histograms)
    }

    /// Every metric in the Prometheus text exposition format, sorted by name then labels.
    public func render() -> String {
        for collect in collectors.withLock({ $0 }) { collect(self) }
        let (values, histogramValues) = merged()
        let help = declarations.withLock { $0.help }
        var names = Set(values.keys.map(\.name)).union(histogramValues.keys.map(\.name))
        names.formUnion(help.keys)
        var output = ""
        for name in names.sorted() {
            if let help = help[name] {
                output += "# HELP \(name) \(help.text)\n# TYPE \(name) \(help.type)\n"
            }
            let plain = values.filter { $0.key.name == name }.map { ($0.key.rendered, $0.value) }.sorted {
                $0.0.lexicographicallyPrecedes($1.0)
            }
            for (labels, value) in plain {
                output += "\(name)\(Self.braces(labels)) \(Self.format(value))\n"
            }
            let histograms = histogramValues.filter { $0.key.name == name }.map { ($0.key.rendered, $0.value) }
                .sorted { $0.0.lexicographicallyPrecedes($1.0) }
            for (labels, histogram) in histograms {
                for (index, bound) in histogram.buckets.enumerated() {
                    output +=
                        "\(name)_bucket\(Self.braces(labels + ["le=\"\(Self.format(bound))\""])) \(histogram.counts[index])\n"
                }
                output += "\(name)_bucket\(Self.braces(labels + ["le=\"+Inf\""])) \(histogram.count)\n"
                output += "\(name)_sum\(Self.braces(labels)) \(Self.format(histogram.sum))\n"
                output += "\(name)_count\(Self.braces(labels)) \(histogram.count)\n"
            }
        }
        return output
    }

    private static func braces(_ labels: [String]) -> String {
        labels.isEmpty ? "" : "{" + labels.joined(separator: ",") + "}"
    }

    fileprivate static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    private static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
