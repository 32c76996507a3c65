import HailCore
import HailRoads
import HailServer
import Testing

/// The streets a share page draws: those near its trip, never the whole city's map.
@Suite("Road map around a trip")
struct RoadMapTests {
    static let city = GeneratedCity(seed: 1)

    @Test func onlyStreetsWithAnEndNearTheTripAreKept() throws {
        let corner = Self.city.graph.coordinates[Int(Self.city.gridNodes[0])]
        let all = RoadMap(graph: Self.city.graph).segments
        let near = RoadMap(graph: Self.city.graph, around: [corner], margin: 200).segments
        #expect(near.count % 4 == 0)
        #expect(!near.isEmpty)
        #expect(near.count < all.count / 4, "a corner of the city keeps under a quarter of its streets")
        for start in stride(from: 0, to: near.count, by: 4) {
            let ends = [
                Coordinate(lat: near[start], lng: near[start + 1]),
                Coordinate(lat: near[start + 2], lng: near[start + 3]),
            ]
            // The box is 200 m on each side, so an end inside it is at most 200 * sqrt(2) m (plus rounding) away.
            #expect(ends.contains { $0.distance(to: corner) <= 284 }, "segment \(start / 4) is far from the trip")
        }
    }

    @Test func aWideMarginKeepsTheWholeCityAndNoPointsOrNoGraphKeepNothing() {
        let center = Coordinate(lat: 43.7384, lng: 7.4246)
        #expect(RoadMap(graph: Self.city.graph, around: [center], margin: 10_000) == RoadMap(graph: Self.city.graph))
        #expect(RoadMap(graph: Self.city.graph, around: [], margin: 10_000).segments.isEmpty)
        #expect(RoadMap(graph: nil, around: [center], margin: 10_000).segments.isEmpty)
    }
}
