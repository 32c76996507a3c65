import Foundation
import HailCore
import HailRoads
import HailServer
import HailTesting
import Testing

@Suite("Fare distance on Monaco's roads")
struct FareMatchTests {
    /// The fixes the server stored for the first 23 s of a simulated Monaco trip (`hail sim --scenario monaco-4g`,
    /// seed 1): the car left the pickup north-east on a one-way carriageway, was barred by a no-U-turn rule from
    /// turning onto the south-west carriageway at the first junction, drove 15 m on to the next one, turned there
    /// and came back down the other side. Its route's odometer says 244 m between the first and the last fix.
    static let trace: [Coordinate] = [
        (43.7493101, 7.4385446), (43.7493366, 7.4387155), (43.74943, 7.4388499), (43.7495007, 7.4388899),
        (43.7494481, 7.4387937), (43.7493485, 7.4386409), (43.749409, 7.4384725), (43.7494682, 7.4383366),
        (43.7493504, 7.438222), (43.7493701, 7.4378146), (43.7493103, 7.4376804), (43.7492384, 7.4374942),
        (43.7491822, 7.4373486), (43.749203, 7.4372293), (43.7491436, 7.4370178), (43.7490418, 7.4369199),
        (43.7490181, 7.4367583),
    ].map { Coordinate(lat: $0.0, lng: $0.1) }

    @Test(
        "Monaco: a U-turn the turn rules force 15 m up the road is charged, not cut at the barred junction",
        .enabled(if: SharedData.file("osm/monaco.osm.pbf") != nil, "needs ../shared/data/osm/monaco.osm.pbf"))
    func uTurnPastABarredJunction() throws {
        let file = try #require(SharedData.file("osm/monaco.osm.pbf"))
        let network = RoadNetwork(graph: RoadGraph(extract: try OSMPBFReader.read(contentsOf: file)))
        let turn = Coordinate(lat: 43.7495539, lng: 7.4389826)
        // The match the fare is priced on (fixes 25 m apart) and the one on every fix agree within 3 % of 244 m.
        // Before, both turned at the barred junction: 213 m. With the turn rules alone, the spaced match still took
        // the other carriageway, driven backwards from the pickup 10 m off its fixes: 205 m.
        let charged = try #require(network.matchedDistance(Self.trace))
        #expect(Int(charged.rounded()) == 244)
        let match = network.matcher.match(Self.trace)
        #expect(Int(match.distance.rounded()) == 244)
        #expect(abs(charged - 244) <= 0.03 * 244)
        // The path goes up to the junction where the car turned.
        #expect(match.coordinates.contains { $0.distance(to: turn) < 0.5 })
    }
}
