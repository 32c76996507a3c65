import Foundation
import HailCore
import HailRoads
import HailTime

/// Measures map matching against known truth: random routes driven at the roads' speeds, sampled every
/// `sampleSeconds`, blurred with Gaussian noise, matched, and compared with the route that made them.
public enum MapMatchBenchmark {
    /// Matches `traces` simulated drives of at least `minimumMeters` on `graph` with the matcher's `beta`;
    /// the clock only times the matching.
    public static func run<C: Clock>(
        graph: RoadGraph, traces: Int = 50, sampleSeconds: Double = 1, noiseMeters: Double = 5,
        minimumMeters: Double = 1_000, beta: Double = 5, seed: UInt64 = 2009, clock: C
    ) -> MapMatchBenchmarkResult where C.Duration == Duration {
        let router = RoadRouter(graph: graph)
        let matcher = MapMatcher(router: router, beta: beta)
        var random = SplitMix64(seed: seed)
        var drives: [(route: Route, trace: [Coordinate], covered: Double)] = []
        var attempts = 0
        while drives.count < traces, attempts < traces * 50, graph.nodeCount > 0 {
            attempts += 1
            let from = Int32(random.next() % UInt64(graph.nodeCount))
            let to = Int32(random.next() % UInt64(graph.nodeCount))
            guard let route = router.route(fromNode: from, toNode: to), route.distance >= minimumMeters else {
                continue
            }
            // Constant speed along the route at its average: fixes every sampleSeconds of driving.
            let spacing = route.distance / route.duration * sampleSeconds
            let count = Int(route.distance / spacing)
            let trace = (0...count).map { index in
                blurred(
                    route.coordinates.point(atFraction: Double(index) * spacing / route.distance)!.coordinate,
                    sigma: noiseMeters, random: &random)
            }
            drives.append((route, trace, Double(count) * spacing))
        }
        var recovered = 0.0
        var total = 0.0
        var matchedDistance = 0.0
        var trueDistance = 0.0
        var breaks = 0
        let start = clock.now
        var matches: [MapMatch] = []
        for drive in drives { matches.append(matcher.match(drive.trace)) }
        let elapsed = start.duration(to: clock.now)
        for (drive, match) in zip(drives, matches) {
            let matched = Set(match.edges)
            for edge in drive.route.edges {
                total += graph.edges[edge].length
                if matched.contains(edge) { recovered += graph.edges[edge].length }
            }
            matchedDistance += match.distance
            trueDistance += drive.covered
            breaks += match.breaks
        }
        let seconds = elapsed.timeInterval
        let points = drives.map(\.trace.count).reduce(0, +)
        return MapMatchBenchmarkResult(
            traces: drives.count, points: points, sampleSeconds: sampleSeconds, noiseMeters: noiseMeters,
            recoveredShare: total > 0 ? recovered / total : 0,
            distanceRatio: trueDistance > 0 ? matchedDistance / trueDistance : 0, breaks: breaks,
            pointsPerSecond: seconds > 0 ? Double(points) / seconds : 0)
    }

    /// `coordinate` moved by Gaussian noise of `sigma` metres on each axis (Box-Muller).
    static func blurred(_ coordinate: Coordinate, sigma: Double, random: inout SplitMix64) -> Coordinate {
        let u1 = max(Double.ulpOfOne, (random.signedUnit() + 1) / 2)
        let u2 = (random.signedUnit() + 1) / 2
        let radius = (-2 * log(u1)).squareRoot() * sigma
        // Metres per degree as HailRoads' local projection has them, so the noise matches the matcher's sigma.
        let metersPerDegreeLat = Coordinate.earthRadiusMeters * .pi / 180
        let metersPerDegreeLng = metersPerDegreeLat * cos(coordinate.lat * .pi / 180)
        return Coordinate(
            lat: coordinate.lat + radius * cos(2 * .pi * u2) / metersPerDegreeLat,
            lng: coordinate.lng + radius * sin(2 * .pi * u2) / metersPerDegreeLng)
    }
}
