import HailProtocol

/// `hail_location_updates_total` for one client (app, version and device as `ClientLabelBounds` admits them), with
/// the accepted and duplicate series resolved once, so the batch-by-batch count takes no lock and hashes no label.
///
/// Kept per driver by the fleet and replaced when the driver's app says it is another client; the rarer results
/// (a reason a point was dropped) go through the registry's lookup.
public final class LocationCounters: Sendable {
    /// The client these counters are labelled for.
    public let client: ClientInfo?
    private let labels: (app: String, version: String, device: String)
    private let registry: MetricsRegistry
    private let accepted: MetricsRegistry.Counter
    private let duplicate: MetricsRegistry.Counter

    init(client: ClientInfo?, metrics: ServerMetrics) {
        self.client = client
        registry = metrics.registry
        let labels = metrics.clientLabels(client)
        self.labels = labels
        accepted = registry.counter("hail_location_updates_total", labels: Self.series("accepted", labels))
        duplicate = registry.counter("hail_location_updates_total", labels: Self.series("duplicate", labels))
    }

    /// Counts `count` points with `result` (`accepted`, `duplicate`, or the reason they were dropped).
    public func add(_ count: Int, result: String) {
        guard count > 0 else { return }
        switch result {
        case "accepted": accepted.add(Double(count))
        case "duplicate": duplicate.add(Double(count))
        default: registry.add("hail_location_updates_total", Double(count), labels: Self.series(result, labels))
        }
    }

    private static func series(_ result: String, _ labels: (app: String, version: String, device: String))
        -> MetricsRegistry.Labels
    {
        ["result": result, "app": labels.app, "version": labels.version, "device": labels.device]
    }
}
