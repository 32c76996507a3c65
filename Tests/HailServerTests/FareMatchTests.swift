import Foundation
import HailCore
import HailRoads
import HailTesting
import Testing

@testable import HailServer

@Suite("Fare distance on Monaco's roads")
struct FareMatchTests {
    /// Monaco's roads, read once for every test here; nil without the shared data.
    static let monaco: RoadNetwork? = SharedData.file("osm/monaco.osm.pbf").flatMap { file in
        (try? OSMPBFReader.read(contentsOf: file)).map { RoadNetwork(graph: RoadGraph(extract: $0)) }
    }

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
        let network = try #require(Self.monaco)
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

    /// The first 10 fixes the server stored for a simulated Monaco trip (`hail sim --scenario chaos`, seed 1; the
    /// same route in dead-zones and stalls): the first is where the car stood at the pickup, facing away from the
    /// dropoff. The car drove 20.8 m south-east to the junction, turned there and came back past the pickup (one
    /// fix shows it, 17 m from the first), then west. Its odometer says 138.9 m at the last fix.
    static let turnBackAtThePickup: [Coordinate] = [
        (43.7473467, 7.42762), (43.7472692, 7.4278012), (43.7473546, 7.4276137), (43.7474998, 7.4274336),
        (43.7474216, 7.4273053), (43.7475954, 7.4271921), (43.7475913, 7.4270672), (43.7475686, 7.4268573),
        (43.7475277, 7.4266361), (43.7473824, 7.4265575),
    ].map { Coordinate(lat: $0.0, lng: $0.1) }

    @Test(
        "Monaco: a car that turns round at the junction past the pickup is charged the way there and back",
        .enabled(if: SharedData.file("osm/monaco.osm.pbf") != nil, "needs ../shared/data/osm/monaco.osm.pbf"))
    func turnBackPastThePickup() throws {
        let network = try #require(Self.monaco)
        // The fix that shows the turn stays in the thinned trace, though it is within 25 m of the first.
        let spaced = RoadNetwork.spaced(
            Self.turnBackAtThePickup, atLeast: RoadNetwork.fareSpacingMeters,
            turningBackBeyond: RoadNetwork.fareTurnBackMeters)
        #expect(spaced.prefix(2) == Self.turnBackAtThePickup.prefix(2))
        // Thinned by spacing alone, that fix went and the fare lost the out and back: 105 m charged. Now the
        // thinned trace is charged what the match on every fix is (142 m; the last fix lies a few metres ahead).
        let charged = try #require(network.matchedDistance(Self.turnBackAtThePickup))
        #expect(Int(charged.rounded()) == 142)
        #expect(abs(charged - 138.9) <= 0.03 * 138.9)
    }

    /// The thinned fixes of a 1,883 m stalls trip (its car's odometer) through two Monaco tunnels. Fix 13, just out of
    /// the first, is a multipath outlier 189 m from the car and 19 m from the nearest road.
    static let outlierAfterATunnel: [Coordinate] = [
        (43.736791, 7.419634), (43.736995, 7.419821), (43.737177, 7.420161), (43.737051, 7.420407),
        (43.736806, 7.420116), (43.736630, 7.419849), (43.736429, 7.419541), (43.736190, 7.419447),
        (43.736034, 7.419149), (43.735714, 7.418660), (43.735578, 7.418317), (43.735330, 7.418237),
        (43.735039, 7.418194), (43.734275, 7.416897), (43.735769, 7.419316), (43.736067, 7.419463),
        (43.736328, 7.419813), (43.736550, 7.419981), (43.736747, 7.420291), (43.737027, 7.420613),
        (43.737156, 7.421013), (43.737320, 7.421455), (43.737401, 7.421785), (43.737543, 7.422182),
        (43.737558, 7.422505), (43.737465, 7.425496), (43.737466, 7.425924), (43.737523, 7.426344),
        (43.737700, 7.427490), (43.737825, 7.427883), (43.740550, 7.429843), (43.740845, 7.429965),
        (43.741080, 7.429965), (43.741250, 7.429971),
    ].map { Coordinate(lat: $0.0, lng: $0.1) }

    @Test(
        "An outlier near some road is passed by, not reached by a drive round the block (issue 14)",
        .enabled(if: SharedData.file("osm/monaco.osm.pbf") != nil, "needs ../shared/data/osm/monaco.osm.pbf"))
    func outlierIsPassedBy() throws {
        let network = try #require(Self.monaco)
        let match = network.matcher.match(Self.outlierAfterATunnel)
        #expect(match.points[13] == nil)
        #expect(match.points.enumerated().allSatisfy { $0.offset == 13 || $0.element != nil })
        #expect(Int(match.distance.rounded()) == 1_879)
        // Every fix matched, as before: the outlier was charged as a kilometre out and back.
        var everyFix = network.matcher
        everyFix.outlierCost = .infinity
        #expect(Int(everyFix.match(Self.outlierAfterATunnel).distance.rounded()) == 2_935)
    }

    /// A fix `east` metres east and `north` metres north of a point in Monaco.
    static func offset(east: Double, north: Double) -> Coordinate {
        let origin = Coordinate(lat: 43.74, lng: 7.42)
        let metresPerDegree = Coordinate.earthRadiusMeters * .pi / 180
        return Coordinate(
            lat: origin.lat + north / metresPerDegree,
            lng: origin.lng + east / (metresPerDegree * cos(origin.lat * .pi / 180)))
    }

    @Test("The fare's thinning keeps a fix where the car turned back, not one off the line on a bend")
    func thinningKeepsTurnsBack() {
        // Out 16 m east, back west past the start: the fix 16 m out stays though it is within 25 m of the first.
        let turnBack = [(0.0, 0.0), (16, 0), (2, 0), (-12, 0), (-26, 0), (-40, 0)].map {
            Self.offset(east: $0.0, north: $0.1)
        }
        #expect(
            RoadNetwork.spaced(turnBack, atLeast: 25, turningBackBeyond: 15)
                == [turnBack[0], turnBack[1], turnBack[4], turnBack[5]])
        // The same fix on no road of the fix before it is noise, not the tip of a turn back: thinned.
        #expect(
            RoadNetwork.spaced(
                turnBack, atLeast: 25, turningBackBeyond: 15, backAlongItsRoad: { tip, _, _ in tip != turnBack[1] })
                == [turnBack[0], turnBack[4], turnBack[5]])
        // 14 m out is within the tolerance: thinned as before.
        let short = [(0.0, 0.0), (14, 0), (2, 0), (-12, 0), (-26, 0), (-40, 0)].map {
            Self.offset(east: $0.0, north: $0.1)
        }
        #expect(RoadNetwork.spaced(short, atLeast: 25, turningBackBeyond: 15) == [short[0], short[4], short[5]])
        // Driving east, a fix that turns back at once towards where the car came from is noise; one on ahead of the
        // last fix kept, then back, is a turn back.
        let noise = [(-54.0, 0.0), (-27, 0), (0, 0), (-17, 0), (12, 0), (26, 0), (40, 0)].map {
            Self.offset(east: $0.0, north: $0.1)
        }
        #expect(
            RoadNetwork.spaced(noise, atLeast: 25, turningBackBeyond: 15)
                == [noise[0], noise[1], noise[2], noise[5], noise[6]])
        let onAndBack = [(-54.0, 0.0), (-27, 0), (0, 0), (17, 0), (3, 0), (-12, 0), (-26, 0), (-40, 0)].map {
            Self.offset(east: $0.0, north: $0.1)
        }
        #expect(
            RoadNetwork.spaced(onAndBack, atLeast: 25, turningBackBeyond: 15)
                == [onAndBack[0], onAndBack[1], onAndBack[2], onAndBack[3], onAndBack[6], onAndBack[7]])
        // Round a right-angle corner the fix at the corner lies 15.6 m off the line, but the car did not turn back.
        let corner = [(0.0, 0.0), (22, 0), (22, 22), (22, 40)].map { Self.offset(east: $0.0, north: $0.1) }
        #expect(RoadNetwork.spaced(corner, atLeast: 25, turningBackBeyond: 15) == [corner[0], corner[2], corner[3]])
    }

    @Test("The fare's thinning keeps the tip of a turn round the courses show, however near the line")
    func thinningKeepsTheTipOfACourseReversal() {
        // Out east at 10 m with its course, 14 m out slowing to turn (no course), back west with theirs: every fix lies
        // on the line and within 25 m of the first, so spacing and the off-the-line rule thin them all.
        let out: [(east: Double, course: Double?)] = [(0, nil), (10, 90), (14, nil), (2, 270), (-30, 270), (-55, 270)]
        let fixes = out.map { TraceFix(coordinate: Self.offset(east: $0.east, north: 0), course: $0.course) }
        #expect(
            RoadNetwork.spaced(fixes.map(\.coordinate), atLeast: 25, turningBackBeyond: 15)
                == [fixes[0], fixes[4], fixes[5]].map(\.coordinate))
        // The courses reverse between the fix 10 m out and the one 2 m out: the fix farthest out between them stays.
        #expect(
            RoadNetwork.spaced(fixes, atLeast: 25, turningBackBeyond: 15) == [fixes[0], fixes[2], fixes[4], fixes[5]])
        // A bend is no turn round: courses 90 then 180 keep nothing more.
        let turning: [(east: Double, north: Double, course: Double?)] = [
            (0, 0, nil), (10, 0, 90), (14, -6, 180), (14, -30, 180),
        ]
        let bend = turning.map { TraceFix(coordinate: Self.offset(east: $0.east, north: $0.north), course: $0.course) }
        #expect(RoadNetwork.spaced(bend, atLeast: 25, turningBackBeyond: 15) == [bend[0], bend[3]])
    }

    /// 31 fixes, one a second, of a simulated car driving 423.5 m through Monaco's old town (the chaos run of issue 14's
    /// sixth pass, trip 1a347301), where three fixes in a row lie 8-15 m off the street.
    static let noiseOffTheStreet: [Coordinate] = [
        (43.7392725, 7.4248383), (43.7391461, 7.4248255), (43.7389739, 7.4246575),
        (43.7388651, 7.4245914), (43.7388505, 7.4247483), (43.7388875, 7.4249238),
        (43.7387534, 7.4250954), (43.7386962, 7.4252690), (43.7386811, 7.4254124),
        (43.7386259, 7.4254506), (43.7385942, 7.4257594), (43.7386911, 7.4258116),
        (43.7388748, 7.4258420), (43.7389364, 7.4259455), (43.7388443, 7.4260893),
        (43.7387579, 7.4263348), (43.7387449, 7.4264682), (43.7386563, 7.4266425),
        (43.7385456, 7.4266622), (43.7384170, 7.4265960), (43.7384636, 7.4270340),
        (43.7382584, 7.4269781), (43.7381202, 7.4269194), (43.7380965, 7.4268265),
        (43.7380120, 7.4266983), (43.7378708, 7.4265734), (43.7378645, 7.4263679),
        (43.7378273, 7.4262895), (43.7377843, 7.4261343), (43.7378075, 7.4258519),
        (43.7377533, 7.4257184),
    ].map { Coordinate(lat: $0.0, lng: $0.1) }

    @Test(
        "Fixes off the street are not charged as spurs into side streets and turns round (issue 14: 479 m for 423.5 m)",
        .enabled(if: SharedData.file("osm/monaco.osm.pbf") != nil, "needs ../shared/data/osm/monaco.osm.pbf"))
    func noiseOffTheStreetIsNotCharged() throws {
        let network = try #require(Self.monaco)
        #expect(Self.noiseOffTheStreet.count == 31)
        // Compared with the distance of the fixes, the noise asked for 56 m more road: 7.9 m into a side street
        // and back, 5.1 m into another and back, and three turns round on the street itself.
        #expect(try Int(#require(network.matchedDistance(Self.noiseOffTheStreet)).rounded()) == 423)
        let match = network.matcher.match(Self.noiseOffTheStreet)
        let graph = network.router.graph
        // One street after another, never back along one just driven.
        for (earlier, later) in zip(match.edges, match.edges.dropFirst()) {
            #expect(
                graph.edges[earlier].source != graph.edges[later].target
                    || graph.edges[earlier].target != graph.edges[later].source)
        }
    }

    /// 11 fixes, one a second, of a simulated car driving 134 m along a Monaco street past a side street (the
    /// dead-zones run of issue 14's eighth pass, trip 708c11e3); one lies 15 m off the street and 8 m off the side street.
    static let besideASideStreet: [Coordinate] = [
        (43.7388379, 7.4258459), (43.7389229, 7.4259374), (43.7388394, 7.4261858),
        (43.7388288, 7.4263217), (43.7387420, 7.4264980), (43.7386281, 7.4265143),
        (43.7384993, 7.4264478), (43.7385626, 7.4269086), (43.7383844, 7.4269142),
        (43.7382537, 7.4269290), (43.7382130, 7.4269182),
    ].map { Coordinate(lat: $0.0, lng: $0.1) }

    @Test(
        "A fix beside a side street is not charged as a drive into it, a turn round and back (issue 14: +30 m)",
        .enabled(if: SharedData.file("osm/monaco.osm.pbf") != nil, "needs ../shared/data/osm/monaco.osm.pbf"))
    func aFixBesideASideStreetIsNotChargedAsADriveIntoIt() throws {
        let network = try #require(Self.monaco)
        var free = network.matcher
        free.uTurnCost = 0
        let turning = free.match(Self.besideASideStreet)
        let match = network.matcher.match(Self.besideASideStreet)
        // Free to turn round, the model drove 15 m into the side street (edges 3664, 6305), turned and came back
        // (6304, 6306): 30 m the car never drove.
        #expect(Int(turning.distance.rounded()) == 160)
        #expect(turning.edges.contains(6305) && turning.edges.contains(6304))
        // At the cost of a turn round, the street alone, as the car drove it (the first and last fix lie 134 m apart
        // along it, each within the noise).
        #expect(Int(match.distance.rounded()) == 130)
        #expect(match.edges == [6294, 17638, 1, 25107, 3658, 3661, 3663, 3666, 3668, 3670, 3672, 3674, 3676])
    }

    /// A Monaco trip that starts with a turn round, as the 1,431 m stalls trip of issue 14 did: the car stood at node
    /// 15588 facing south-east, drove 20.6 m to the junction at 15587, turned round there and came back past where it
    /// stood, on north-west along the same street: 148.9 m of road, the last fix 144 m along it. A fix a second at
    /// 12 m/s (the second at the tip the phone's 5 m filter left out), each within 4 m east and north of the car.
    static func turnRoundAtTheStart(seed: UInt64) throws -> [TraceFix] {
        let graph = try #require(monaco).graph
        let road = [15588, 15587, 15588, 15589, 15590, 15591, 15592, 15593, 15594, 15595].map { graph.coordinates[$0] }
        var random = SplitMix64(seed: seed)
        return try ([0, 12, 48] + stride(from: 60.0, through: 144, by: 12)).enumerated().map { index, along in
            let truth = try #require(road.point(atFraction: along / road.pathLength))
            let metresPerDegree = Coordinate.earthRadiusMeters * .pi / 180
            let north = Double.random(in: -4...4, using: &random)
            let east = Double.random(in: -4...4, using: &random)
            let fix = Coordinate(
                lat: truth.coordinate.lat + north / metresPerDegree,
                lng: truth.coordinate.lng + east / (metresPerDegree * cos(truth.coordinate.lat * .pi / 180)))
            // The car stood still at the first fix: the phone gives no course at rest.
            return TraceFix(coordinate: fix, heading: index == 0 ? -1 : truth.bearing, speed: index == 0 ? 0 : 12)
        }
    }

    @Test(
        "Monaco: a turn round at the start that the fixes' courses show is charged, though no fix lies past 12 m out",
        .enabled(if: SharedData.file("osm/monaco.osm.pbf") != nil, "needs ../shared/data/osm/monaco.osm.pbf"))
    func aTurnRoundTheCoursesShowIsCharged() throws {
        let network = try #require(Self.monaco)
        for seed in UInt64(1)...20 {
            let fixes = try Self.turnRoundAtTheStart(seed: seed)
            let charged = try #require(network.matchedDistance(fixes))
            // With the courses: the way out to the junction and back is charged, 136-150 m for 144.
            #expect(abs(charged - 144) <= 8, "seed \(seed): \(charged)")
            // From positions alone the fix 12 m out is noise (and the thinning drops it): 36-53 m short, as the
            // stalls trip was.
            let positionsOnly = try #require(network.matchedDistance(fixes.map(\.coordinate)))
            #expect((91...108).contains(Int(positionsOnly.rounded())), "seed \(seed): \(positionsOnly)")
        }
        let fixes = try Self.turnRoundAtTheStart(seed: 1)
        let charged = try #require(network.matchedDistance(fixes))
        #expect(Int(charged.rounded()) == 146)
        // The match drives to the junction (edge 27366), turns round and comes back (27365).
        let match = network.matcher.match(fixes)
        #expect(match.edges.prefix(3) == [27366, 27365, 27367])
        // The thinned trace keeps the fix at the tip, within 25 m of the first.
        let spaced = RoadNetwork.spaced(
            fixes, atLeast: RoadNetwork.fareSpacingMeters, turningBackBeyond: RoadNetwork.fareTurnBackMeters)
        #expect(spaced.prefix(2) == fixes.prefix(2))
    }

    /// The first 14 fixes the server stored, with the phone's heading and speed, of a 1,643 m trip in issue 14's
    /// dead-zones run (tenth pass, trip 35191a58): the car had come to the pickup heading 23 degrees, stood, and left
    /// heading 203, a fix a second at 13.9 m/s (about 167 m from the second fix to the last).
    static let reversedAtThePickup: [TraceFix] = [
        (43.7297382, 7.4086859, 22.8, 13.38), (43.7296825, 7.4086826, 22.8, 0.0), (43.7296228, 7.4086259, 202.8, 13.88),
        (43.7294871, 7.4085950, 202.8, 13.89), (43.7293704, 7.4084899, 201.1, 13.89),
        (43.7292012, 7.4083491, 193.9, 13.87),
        (43.7291018, 7.4084133, 193.9, 13.89), (43.7289815, 7.4083750, 174.6, 13.72),
        (43.7288846, 7.4082949, 147.0, 12.49),
        (43.7288489, 7.4084282, 50.4, 11.9), (43.7290163, 7.4085802, 37.8, 13.86), (43.7290885, 7.4086568, 5.2, 13.85),
        (43.7292188, 7.4086016, 9.5, 13.89), (43.7293362, 7.4086673, 9.5, 13.89),
    ].map { TraceFix(coordinate: Coordinate(lat: $0.0, lng: $0.1), heading: $0.2, speed: $0.3) }

    @Test(
        "Monaco: a turn round the courses show is not charged as a drive to the far end of a long street and back",
        .enabled(if: SharedData.file("osm/monaco.osm.pbf") != nil, "needs ../shared/data/osm/monaco.osm.pbf"))
    func aTurnRoundIsNotADriveToTheFarEndOfTheStreet() throws {
        let network = try #require(Self.monaco)
        // Free of the detour however far it went, the match drove the first fix's way to the end of its 98 m edge
        // (9989), turned there and came back: 358 m, and 187 m too many on the trip.
        var unbounded = network.matcher
        unbounded.turnRoundReach = .infinity
        let far = unbounded.match(Self.reversedAtThePickup)
        #expect(Int(far.distance.rounded()) == 358)
        #expect(far.edges.prefix(2) == [9989, 9990])
        // Within `turnRoundReach`, the way the car left: 168 m (174 m from positions alone).
        let charged = try #require(network.matchedDistance(Self.reversedAtThePickup))
        #expect(Int(charged.rounded()) == 168)
        #expect(!network.matcher.match(Self.reversedAtThePickup).edges.contains(9989))
    }
}
