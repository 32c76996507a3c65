extension ServerMetrics {
    /// Declares the reconciler's series, so they are exposed (at zero) before its first repair.
    static func declareReconciler(_ registry: MetricsRegistry) {
        registry.declare(
            "hail_reconciler_passes_total", type: "counter",
            help: "Reconciler passes by result: ok, or failed (a backend down; retried every second).")
        registry.declare(
            "hail_reconciler_repairs_total", type: "counter",
            help: "Derived state the reconciler put right, by kind: driverTrip (a driver's shared trip record"
                + " rewritten from the trip store) or redelivered (a trip change published again).")
        registry.declare(
            "hail_reconciler_heals_total", type: "counter",
            help: "Reconciler passes that succeeded after failures: a backend came back.")
        registry.add("hail_reconciler_passes_total", 0, labels: ["result": "ok"])
        registry.add("hail_reconciler_passes_total", 0, labels: ["result": "failed"])
        registry.add("hail_reconciler_repairs_total", 0, labels: ["kind": "driverTrip"])
        registry.add("hail_reconciler_repairs_total", 0, labels: ["kind": "redelivered"])
        registry.add("hail_reconciler_heals_total", 0)
        registry.declare(
            "hail_driver_status_restored_total", type: "counter",
            help: "Drivers whose online status this node wrote back when a position batch found none stored (Redis"
                + " flushed, a key evicted, Redis restarted empty) while their app kept sending positions.")
        registry.add("hail_driver_status_restored_total", 0)
    }

    /// One reconciler pass: what it repaired and whether every backend answered.
    public func reconciled(_ driversRepaired: Int, redelivered: Int, succeeded: Bool) {
        registry.add("hail_reconciler_passes_total", labels: ["result": succeeded ? "ok" : "failed"])
        if driversRepaired > 0 {
            registry.add("hail_reconciler_repairs_total", Double(driversRepaired), labels: ["kind": "driverTrip"])
        }
        if redelivered > 0 {
            registry.add("hail_reconciler_repairs_total", Double(redelivered), labels: ["kind": "redelivered"])
        }
    }

    /// A reconciler pass succeeded after failures.
    public func reconcilerHealed() { registry.add("hail_reconciler_heals_total") }

    /// A driver's online status written back by a batch that found none stored.
    public func driverStatusRestored() { registry.add("hail_driver_status_restored_total") }
}
