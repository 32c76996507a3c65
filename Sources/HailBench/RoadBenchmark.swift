import HailCore
import HailRoads
import HailTime

/// Measures loading and routing speed on a PBF file, for `docs/BENCHMARKS.md` and a future `hail bench route`.
///
/// The clock is a parameter (pass `ContinuousClock()`), keeping the library free of clock reads; the
/// route pairs are drawn from a seeded generator so two runs ask the same questions.
public enum RoadBenchmark {
    /// Reads `pbf`, builds the graph and index, then times `routes` random node-to-node routes and as many
    /// snaps of random points in the graph's bounding box.
    public static func run<C: Clock>(
        pbf: [UInt8], routes: Int = 2_000, seed: UInt64 = 1, clock: C
    ) throws(PBFError) -> RoadBenchmarkResult where C.Duration == Duration {
        var start = clock.now
        func lap() -> Double {
            let now = clock.now
            let elapsed = start.duration(to: now)
            start = now
            return elapsed.timeInterval
        }
        let extract = try OSMPBFReader.read(pbf)
        let readSeconds = lap()
        let graph = RoadGraph(extract: extract)
        let graphSeconds = lap()
        let router = RoadRouter(graph: graph)
        let indexSeconds = lap()
        var random = SplitMix64(seed: seed)
        let count = UInt64(max(1, graph.nodeCount))
        let pairs = (0..<routes).map { _ in (Int32(random.next() % count), Int32(random.next() % count)) }
        _ = lap()
        var found = 0
        var meters = 0.0
        for (from, to) in pairs {
            guard let route = router.route(fromNode: from, toNode: to) else { continue }
            found += 1
            meters += route.distance
        }
        let routeSeconds = lap()
        let lats = graph.coordinates.map(\.lat)
        let lngs = graph.coordinates.map(\.lng)
        let (south, north) = (lats.min() ?? 0, lats.max() ?? 0)
        let (west, east) = (lngs.min() ?? 0, lngs.max() ?? 0)
        let points = (0..<routes).map { _ in
            Coordinate(
                lat: south + (random.signedUnit() + 1) / 2 * (north - south),
                lng: west + (random.signedUnit() + 1) / 2 * (east - west))
        }
        _ = lap()
        var snapped = 0
        for point in points where router.snapper.snap(point) != nil { snapped += 1 }
        // Keep the result alive so the optimiser cannot drop the loop.
        precondition(snapped <= points.count)
        let snapSeconds = lap()
        return RoadBenchmarkResult(
            readSeconds: readSeconds, graphSeconds: graphSeconds, indexSeconds: indexSeconds,
            nodeCount: graph.nodeCount, edgeCount: graph.edgeCount, routes: routes, routesFound: found,
            meanRouteMeters: found > 0 ? meters / Double(found) : 0,
            routesPerSecond: routeSeconds > 0 ? Double(routes) / routeSeconds : 0,
            snapsPerSecond: snapSeconds > 0 ? Double(points.count) / snapSeconds : 0)
    }
}
