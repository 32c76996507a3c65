import Foundation
import HailScale
import HailServer
import Testing

/// `deploy/prometheus/`: every metric the Grafana dashboard and the alerting rules query is one the server
/// exposes, so a renamed metric cannot leave a panel empty or an alert that never fires.
@Suite("The dashboard and the alerts query metrics the server exposes")
struct DashboardQueriesTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/prometheus")

    /// Every metric name `/metrics` declares: the server's, and the scaled mode's Redis bus and ingest pipeline.
    static func exposed() -> Set<String> {
        let metrics = ServerMetrics()
        RedisTripBus.declareMetrics(in: metrics.registry)
        RedisIngestPipeline.declareMetrics(in: metrics.registry)
        return Set(
            metrics.registry.render().split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("# TYPE ") else { return nil }
                return line.split(separator: " ").dropFirst(2).first.map(String.init)
            })
    }

    /// The `hail_` metric names in a PromQL expression, with a histogram's `_bucket`, `_sum` and `_count` taken
    /// back to the histogram.
    static func names(in expression: String) -> Set<String> {
        var names = Set<String>()
        var rest = Substring(expression)
        while let start = rest.range(of: "hail_") {
            let name = rest[start.lowerBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            var base = String(name)
            for suffix in ["_bucket", "_sum", "_count"] where base.hasSuffix(suffix) {
                base = String(base.dropLast(suffix.count))
            }
            names.insert(base)
            rest = rest[name.endIndex...]
        }
        return names
    }

    @Test("every dashboard panel's query names an exposed metric (or Prometheus's up)")
    func dashboard() throws {
        let data = try Data(contentsOf: Self.folder.appendingPathComponent("hail-dashboard.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        let expressions = panels.flatMap { panel in
            (panel["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String }
        }
        #expect(expressions.count == 41)
        let exposed = Self.exposed()
        var queried = Set<String>()
        for expression in expressions {
            let names = Self.names(in: expression)
            #expect(!names.isEmpty || expression.contains("up{"), "\(expression) queries no metric")
            #expect(names.isSubset(of: exposed), "\(expression): \(names.subtracting(exposed)) not exposed")
            queried.formUnion(names)
        }
        // And every metric the server exposes has a panel.
        #expect(exposed.subtracting(queried) == [])
    }

    @Test("every alerting rule queries exposed metrics")
    func rules() throws {
        let text = try String(contentsOf: Self.folder.appendingPathComponent("hail-rules.yml"), encoding: .utf8)
        let expressions = text.components(separatedBy: "expr:").dropFirst().map {
            $0.components(separatedBy: "for:")[0]
        }
        #expect(expressions.count == 9)
        let queried = expressions.reduce(into: Set<String>()) { $0.formUnion(Self.names(in: $1)) }
        #expect(
            queried == [
                "hail_position_age_seconds", "hail_reconnects_total", "hail_push_deliveries_total",
                "hail_bus_publish_failures_total", "hail_flags_last_reload_successful", "hail_session_crashes_total",
                "hail_sessions_total", "hail_battery_drained_percent_total", "hail_battery_active_seconds_total",
                "hail_clock_offset_seconds",
            ])
        #expect(queried.isSubset(of: Self.exposed()))
    }
}
