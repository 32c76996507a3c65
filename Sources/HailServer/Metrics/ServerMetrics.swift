import Foundation
import HailCore
import HailProtocol
import Synchronization

/// The server's metrics by name, so every call site records the same series the same way.
public struct ServerMetrics: Sendable {
    /// The registry they are recorded in.
    public let registry: MetricsRegistry
    /// What the client-controlled labels (app, version, device from `X-Hail-Client`) may take.
    public let clientBounds: ClientLabelBounds
    /// `hail_position_age_seconds`, resolved once: observed for every published position.
    private let positionAge: MetricsRegistry.HistogramSeries
    /// `hail_publish_to_send_seconds`, resolved once: observed for every position sent to a rider.
    private let publishToSendSeconds: MetricsRegistry.HistogramSeries
    /// The regions `hail_drivers_degraded` has a series for, so one that empties is set to 0, not left behind.
    let degradedRegions = SharedSet()

    /// Creates the metrics and declares their help texts.
    public init(registry: MetricsRegistry = MetricsRegistry(), clientBounds: ClientLabelBounds = ClientLabelBounds()) {
        self.registry = registry
        self.clientBounds = clientBounds
        registry.declare(
            "hail_connections", type: "gauge",
            help: "Open WebSocket connections by role and client (app, version, device; bounded, others are other).")
        registry.declare(
            "hail_location_updates_total", type: "counter",
            help: "Location points received, by result (accepted or the reason dropped) and client.")
        registry.declare(
            "hail_position_age_seconds", type: "histogram",
            help: "Age of a position when published to riders: server time minus the fix's device time.",
            buckets: [0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 60])
        registry.declare(
            "hail_publish_to_send_seconds", type: "histogram",
            help: "Time from a position's publish to its hand-over to a rider's socket.",
            buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5])
        registry.declare("hail_trips", type: "gauge", help: "Trips by state, changed by this node since it started.")
        registry.declare(
            "hail_idempotent_replays_total", type: "counter",
            help: "Requests answered from a stored idempotent response.")
        registry.declare(
            "hail_reconnects_total", type: "counter",
            help: "Stream connections that resumed after a previous one, by role.")
        registry.declare("hail_http_requests_total", type: "counter", help: "HTTP requests by route and status.")
        registry.declare(
            "hail_dispatch_offers_total", type: "counter", help: "Trip offers sent to drivers, by outcome.")
        registry.declare(
            "hail_push_total", type: "counter",
            help: "APNs answers by push type (alert, liveactivity) and result (delivered, token_removed, retried,"
                + " provider_token_renewed, failed).")
        registry.declare(
            "hail_rate_limited_total", type: "counter", help: "Requests and upgrades refused with 429, by limit.")
        registry.declare(
            "hail_push_deliveries_total", type: "counter",
            help: "Pushes to the gateway by result: delivered, or failed after the last retry.")
        Self.declareOperability(registry)
        Self.declareClock(registry)
        Self.declareReconciler(registry)
        Self.declareSafety(registry)
        positionAge = registry.histogram("hail_position_age_seconds")
        publishToSendSeconds = registry.histogram("hail_publish_to_send_seconds")
    }

    /// One APNs answer for a push of `type`, by what was done about it.
    public func push(type: String, result: String) {
        registry.add("hail_push_total", labels: ["type": type, "result": result])
    }

    /// Labels for a client that said who it is (`X-Hail-Client`), bounded: `unknown` when not said, `other` for
    /// anything `clientBounds` does not admit.
    func clientLabels(_ client: ClientInfo?) -> (app: String, version: String, device: String) {
        clientBounds.labels(client)
    }

    /// A WebSocket opened (+1) or closed (-1).
    public func connection(role: Role, client: ClientInfo?, delta: Double) {
        let c = clientLabels(client)
        registry.add(
            "hail_connections", delta,
            labels: ["role": role.rawValue, "app": c.app, "version": c.version, "device": c.device])
    }

    /// Location points received, by result.
    public func locationPoints(_ count: Int, result: String, client: ClientInfo?) {
        guard count > 0 else { return }
        let c = clientLabels(client)
        registry.add(
            "hail_location_updates_total", Double(count),
            labels: ["result": result, "app": c.app, "version": c.version, "device": c.device])
    }

    /// The location counters of one client, resolved once (bounded labels, one handle per result), for the
    /// ingest path that counts every batch a driver's app sends.
    public func locationCounters(for client: ClientInfo?) -> LocationCounters {
        LocationCounters(client: client, metrics: self)
    }

    /// A position was published to riders at this age.
    public func positionPublished(age: TimeInterval) { positionAge.observe(max(0, age)) }

    /// A position reached a rider's socket this long after it was published.
    public func publishToSend(_ seconds: TimeInterval) { publishToSendSeconds.observe(max(0, seconds)) }

    /// A trip changed state (or was created, with no previous state).
    public func tripChanged(to state: TripState, from previous: TripState?) {
        guard state != previous else { return }
        if let previous { registry.add("hail_trips", -1, labels: ["state": previous.rawValue]) }
        registry.add("hail_trips", 1, labels: ["state": state.rawValue])
    }

    /// The database refused a second active trip for a `party` (`rider` or `driver`): a race the pre-checks missed.
    public func activeTripRefused(_ party: String) {
        registry.add("hail_active_trip_conflicts_total", labels: ["party": party])
    }

    /// An idempotent answer was replayed.
    public func idempotentReplay() { registry.add("hail_idempotent_replays_total") }

    /// A stream resumed.
    public func reconnect(role: Role) { registry.add("hail_reconnects_total", labels: ["role": role.rawValue]) }

    /// Streams resumed since the start, every role together (the operator's live numbers).
    public func reconnectCount() -> Int {
        Int(Role.allCases.reduce(0.0) { $0 + registry.value("hail_reconnects_total", labels: ["role": $1.rawValue]) })
    }

    /// An HTTP request was answered.
    public func httpRequest(route: String, status: Int) {
        registry.add("hail_http_requests_total", labels: ["route": route, "status": String(status)])
    }

    /// A push was delivered, or given up after its last attempt.
    public func pushDelivery(delivered: Bool) {
        registry.add("hail_push_deliveries_total", labels: ["result": delivered ? "delivered" : "failed"])
    }

    /// A dispatch offer event: `sent`, `accepted`, `declined`, `expired`.
    public func offer(_ outcome: String) { registry.add("hail_dispatch_offers_total", labels: ["outcome": outcome]) }
}

/// A set of strings shared by copies of a value type, under a lock.
final class SharedSet: Sendable {
    private let values = Mutex<Set<String>>([])

    /// Runs `body` on the set under the lock.
    func withLock<T: Sendable>(_ body: (inout Set<String>) -> T) -> T { values.withLock { body(&$0) } }
}
