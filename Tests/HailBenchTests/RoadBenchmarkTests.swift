import Foundation
import HailBench
import HailCore
import HailRoads
import HailTesting
import Testing

/// The benchmarks' deterministic parts, on a manual clock that never moves: timing is never tested.
@Suite("Benchmarks")
struct BenchmarkTests {
    @Test(
        "RoadBenchmark asks the same seeded questions of Monaco every run",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func roads() throws {
        let url = try #require(SharedData.file("osm/monaco.osm.pbf"))
        let bytes = [UInt8](try Data(contentsOf: url))
        let result = try RoadBenchmark.run(pbf: bytes, routes: 200, clock: ManualClock())
        #expect(result.nodeCount == 16_366)
        #expect(result.edgeCount == 28_815)
        #expect(result.routes == 200)
        #expect(result.routesFound == 171)
        #expect(Int(result.meanRouteMeters.rounded()) == 6_856)
        #expect(result.routesPerSecond == 0)
    }

    @Test("MapMatchBenchmark on the generated city: 1 s and 15 s fixes, 5 m noise")
    func matching() {
        let graph = GeneratedCity(seed: 42).graph
        let dense = MapMatchBenchmark.run(
            graph: graph, traces: 10, sampleSeconds: 1, minimumMeters: 500, clock: ManualClock())
        #expect(dense.traces == 10)
        #expect(dense.points == 754)
        #expect(Int((dense.recoveredShare * 1000).rounded()) == 1_000)
        #expect(Int((dense.distanceRatio * 1000).rounded()) == 1_002)
        #expect(dense.breaks == 0)
        let sparse = MapMatchBenchmark.run(
            graph: graph, traces: 10, sampleSeconds: 15, minimumMeters: 500, clock: ManualClock())
        #expect(sparse.points == 59)
        #expect(Int((sparse.recoveredShare * 1000).rounded()) == 974)
        #expect(Int((sparse.distanceRatio * 1000).rounded()) == 998)
        #expect(sparse.breaks == 0)
    }
}
