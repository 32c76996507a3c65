import HailCore

extension ServerMetrics {
    /// Declares the trip-safety series at zero for every kind and answer, so a dashboard sees them before the first.
    static func declareSafety(_ registry: MetricsRegistry) {
        registry.declare(
            "hail_trip_alerts_total", type: "counter",
            help: "Trip alerts raised on trips under way, by kind: routeDeviation, longStop.")
        registry.declare(
            "hail_trip_checkins_total", type: "counter",
            help: "Riders' answers to a trip alert's check-in, by answer: ok, help.")
        registry.declare(
            "hail_trip_routes_reported_total", type: "counter",
            help:
                "Routes drivers' navigation reported on trips under way (starts and re-routes) that replaced the plan.")
        registry.add("hail_trip_routes_reported_total", 0)
        for kind in TripAlertKind.allCases {
            registry.add("hail_trip_alerts_total", 0, labels: ["kind": kind.rawValue])
        }
        for answer in CheckInAnswer.allCases {
            registry.add("hail_trip_checkins_total", 0, labels: ["answer": answer.rawValue])
        }
    }

    /// A trip alert of `kind` was raised (committed to the trip's log).
    public func tripAlertRaised(_ kind: TripAlertKind) {
        registry.add("hail_trip_alerts_total", labels: ["kind": kind.rawValue])
    }

    /// A rider answered a trip alert's check-in with `answer`.
    public func checkInAnswered(_ answer: CheckInAnswer) {
        registry.add("hail_trip_checkins_total", labels: ["answer": answer.rawValue])
    }

    /// A driver's reported route replaced a trip's plan.
    public func routeReported() {
        registry.add("hail_trip_routes_reported_total")
    }
}
