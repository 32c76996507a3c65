import Foundation

/// The node's clock against the deployment's shared one (`ClockOffsetMonitor`).
extension ServerMetrics {
    static func declareClock(_ registry: MetricsRegistry) {
        registry.declare(
            "hail_clock_offset_seconds", type: "gauge",
            help: "This node's clock minus the shared reference's (Redis TIME, else PostgreSQL now()), from the"
                + " quickest of three exchanges, half the round trip allowed for; sampled every 15 s.")
    }

    /// Sets the node's clock offset from `reference` (`redis`, `postgres`), in seconds (positive: ahead).
    public func clockOffset(_ seconds: Double, reference: String) {
        registry.set("hail_clock_offset_seconds", seconds, labels: ["reference": reference])
    }
}
