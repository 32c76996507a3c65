import Foundation
import HailProtocol
import HailServer
import Testing

/// Series resolved once (`MetricsRegistry.counter`, `.histogram`, `LocationCounters`) add up with the ones
/// updated by name, and render as one series.
@Suite("Metrics: handles resolved once")
struct MetricsHandleTests {
    @Test func aCounterHandleAndAddsByNameAreOneSeries() {
        let registry = MetricsRegistry()
        registry.declare("hail_test_total", type: "counter", help: "A test counter.")
        let handle = registry.counter("hail_test_total", labels: ["result": "accepted"])
        #expect(registry.counter("hail_test_total", labels: ["result": "accepted"]) === handle)
        #expect(registry.counter("hail_test_total", labels: ["result": "dropped"]) !== handle)
        handle.add(3)
        handle.add()
        registry.add("hail_test_total", 2, labels: ["result": "accepted"])
        // Two loops adding at once lose nothing.
        DispatchQueue.concurrentPerform(iterations: 2) { _ in for _ in 0..<10_000 { handle.add(0.5) } }
        #expect(handle.value == 10_004)
        #expect(registry.value("hail_test_total", labels: ["result": "accepted"]) == 10_006)
        #expect(
            registry.render()
                == """
                # HELP hail_test_total A test counter.
                # TYPE hail_test_total counter
                hail_test_total{result="accepted"} 10006
                hail_test_total{result="dropped"} 0

                """)
    }

    @Test func aHistogramHandleRendersItsBucketsWithTheObservationsByName() {
        let registry = MetricsRegistry()
        registry.declare("hail_test_seconds", type: "histogram", help: "A test histogram.", buckets: [1, 0.1])
        let handle = registry.histogram("hail_test_seconds")
        handle.observe(0.05)
        handle.observe(0.5)
        registry.observe("hail_test_seconds", 2)
        #expect(registry.observationCount("hail_test_seconds") == 3)
        #expect(
            registry.render()
                == """
                # HELP hail_test_seconds A test histogram.
                # TYPE hail_test_seconds histogram
                hail_test_seconds_bucket{le="0.1"} 1
                hail_test_seconds_bucket{le="1"} 2
                hail_test_seconds_bucket{le="+Inf"} 3
                hail_test_seconds_sum 2.55
                hail_test_seconds_count 3

                """)
    }

    @Test func locationCountersLabelTheirClientBoundedAndSumWithTheRest() {
        let metrics = ServerMetrics()
        let client = ClientInfo(app: "hail-driver", version: "2.1.0", deviceModel: "iPhone15,2")
        let counters = metrics.locationCounters(for: client)
        #expect(counters.client == client)
        counters.add(3, result: "accepted")
        counters.add(0, result: "accepted")
        counters.add(2, result: "duplicate")
        counters.add(1, result: "too_fast")
        metrics.locationPoints(4, result: "accepted", client: client)
        let labels: (String) -> MetricsRegistry.Labels = { result in
            ["result": result, "app": "hail-driver", "version": "2.1.0", "device": "iPhone15,2"]
        }
        #expect(metrics.registry.value("hail_location_updates_total", labels: labels("accepted")) == 7)
        #expect(metrics.registry.value("hail_location_updates_total", labels: labels("duplicate")) == 2)
        #expect(metrics.registry.value("hail_location_updates_total", labels: labels("too_fast")) == 1)
        let anonymous = metrics.locationCounters(for: nil)
        anonymous.add(5, result: "accepted")
        #expect(
            metrics.registry.value(
                "hail_location_updates_total",
                labels: ["result": "accepted", "app": "unknown", "version": "unknown", "device": "unknown"]) == 5)
    }
}
