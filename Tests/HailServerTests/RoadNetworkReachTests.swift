import Foundation
import HailCore
import HailProtocol
import HailRoads
import HailServer
import HailTesting
import Testing

/// Issue 14, seventh pass: Avenue Pasteur in Monaco doubles back on itself in a hairpin whose legs lie 15-20 m apart.
/// A car came round it at 6 m/s; a noisy fix taken on the way back (12 m off the return leg, 7.5 m off the outbound
/// one) was snapped afresh onto the outbound leg driven the other way, which runs the car's way: the leg the car had
/// driven 8 s before. The rider's pin called that live. The fixes are the chaos run's, as the server stored them.
@Suite(
    "A moving car's fix goes on a road it can reach",
    .enabled(if: SharedData.file("osm/monaco.osm.pbf") != nil, "needs ../shared/data/osm/monaco.osm.pbf"))
struct RoadNetworkReachTests {
    /// The fix before, on the return leg just past the hairpin, the car heading 245 degrees.
    static let before = Coordinate(lat: 43.7305485, lng: 7.4142171)
    /// The noisy fix a second later, heading 250 degrees.
    static let noisy = Coordinate(lat: 43.7306402, lng: 7.4141078)
    /// The fix a second after that, back near the return leg.
    static let after = Coordinate(lat: 43.7304467, lng: 7.4140798)
    /// Edges of Avenue Pasteur: the return leg (driven 11899 -> 11898) and the outbound leg the other way.
    static let returnLeg = 20455
    static let outboundLegTheOtherWay = 20470

    static let network: RoadNetwork? = SharedData.file("osm/monaco.osm.pbf").flatMap { file in
        (try? OSMPBFReader.read(contentsOf: file)).map { RoadNetwork(graph: RoadGraph(extract: $0)) }
    }

    @Test func aNoisyFixBesideTheOtherLegOfAHairpinStaysOnTheLegTheCarIsOn() throws {
        let network = try #require(Self.network)
        let previous = try #require(network.snap(Self.before, heading: 245, radius: 25))
        #expect(previous.edge == Self.returnLeg)
        // Afresh, the nearest edge running the car's way is the outbound leg, which the car cannot reach going on.
        let afresh = try #require(network.snap(Self.noisy, heading: 250, radius: 25))
        #expect(afresh.edge == Self.outboundLegTheOtherWay)
        #expect(Int(afresh.distance.rounded()) == 8)
        let afreshReachable = network.isReachable(from: previous, to: afresh)
        #expect(!afreshReachable)
        // The outbound leg is the stretch the car drove up the other way.
        #expect(network.isSameStretch(afresh.edge, Self.outboundLegTheOtherWay + 1))
        // Reached from where the car was: the return leg, 12 m from the fix, 19 m from the outbound leg's point.
        let reached = try #require(
            network.snap(Self.noisy, heading: 250, radius: 25, reachedFrom: previous))
        #expect(reached.edge == Self.returnLeg)
        #expect(Int(reached.distance.rounded()) == 12)
        let reachedReachable = network.isReachable(from: previous, to: reached)
        #expect(reachedReachable)
        #expect(Int(reached.coordinate.distance(to: afresh.coordinate).rounded()) == 19)
        #expect(Int(reached.coordinate.distance(to: previous.coordinate).rounded()) == 5)
        // Nothing the car reaches lies within 10 m of the fix.
        #expect(network.snap(Self.noisy, heading: 250, radius: 10, reachedFrom: previous) == nil)
    }

    /// The car's fixes a second apart, up the outbound leg, round the hairpin and down to `before`, with headings.
    static let roundTheHairpin: [(Coordinate, Double)] = [
        (Coordinate(lat: 43.7306659, lng: 7.4140014), 60), (Coordinate(lat: 43.7306852, lng: 7.414061), 60),
        (Coordinate(lat: 43.7307244, lng: 7.4141284), 40), (Coordinate(lat: 43.7307852, lng: 7.4141589), 20),
        (Coordinate(lat: 43.7307779, lng: 7.4142998), 120), (Coordinate(lat: 43.7306347, lng: 7.4143899), 200),
        (Coordinate(lat: 43.7306115, lng: 7.4143295), 230), (Coordinate(lat: 43.730541, lng: 7.4142637), 240),
        (before, 245),
    ]

    @Test func theLiveFixAfterTheHairpinIsPublishedOnTheReturnLeg() async throws {
        let network = try #require(Self.network)
        let h = await ServerHarness(flags: "", roads: .loaded(network))
        try await h.assignedTrip(
            pickup: Coordinate(lat: 43.7296, lng: 7.4118), dropoff: Coordinate(lat: 43.7318, lng: 7.4205),
            driverAt: Self.roundTheHairpin[0].0)
        var riders = await TopicReader(h.services.bus, .trip("trip-1"))
        for (seq, (fix, heading)) in Self.roundTheHairpin.enumerated() {
            h.advance(seconds: 1)
            await h.sendFix("driver-1", seq: Int64(10 + seq), at: fix, heading: heading, speed: 6)
        }
        let first = try #require(try await RoadRoutingTests.moves(&riders, h).last)
        h.advance(seconds: 1)
        await h.sendFix("driver-1", seq: 30, at: Self.noisy, heading: 250, speed: 6)
        let moved = try #require(try await RoadRoutingTests.moves(&riders, h).last)
        let previous = try #require(network.snap(Self.before, heading: 245, radius: 25))
        let returnLeg = try #require(network.snap(Self.noisy, heading: 250, radius: 25, reachedFrom: previous))
        #expect(moved.coordinate == returnLeg.coordinate)
        #expect(Int(moved.coordinate.distance(to: first.coordinate).rounded()) == 5)
        // Glided 6 m on along the leg, not 19 m across to the other one.
        let path = try #require(try moved.pathCoordinates())
        #expect(Int(path.pathLength.rounded()) == 6)
        h.advance(seconds: 1)
        await h.sendFix("driver-1", seq: 31, at: Self.after, heading: 255, speed: 6)
        let next = try #require(try await RoadRoutingTests.moves(&riders, h).last)
        // A fix on a road the car was not shown on lately is snapped as it always was: the nearest road its way.
        #expect(next.coordinate == network.snap(Self.after, heading: 255, radius: 25)?.coordinate)
    }

    /// Issue 14, ninth pass: another car round the same hairpin, one batch every 2-3 s, so its pins fell on the outbound
    /// leg (edge 20471) and past the top (20463), never on the short stretch between them (20469), which the rider saw it
    /// glide along. The newest fix of each batch, with the heading of the road the car was on; the chaos run's.
    static let roundTheTop: [(seconds: Double, fix: Coordinate, heading: Double)] = [
        (0, Coordinate(lat: 43.7305595, lng: 7.4135307), 72), (2, Coordinate(lat: 43.7305713, lng: 7.4138082), 63),
        (3, Coordinate(lat: 43.7306934, lng: 7.4140437), 63), (3, Coordinate(lat: 43.7306898, lng: 7.4143375), 138),
        (3, Coordinate(lat: 43.7305702, lng: 7.4143072), 249),
    ]
    /// The fix a second later, on the way down, 10 m up towards the top stretch.
    static let towardsTheTop = Coordinate(lat: 43.7306609, lng: 7.4141983)
    /// The top stretch, driven down: the way the car goes, and the other way of the stretch it crossed.
    static let topStretchDown = 20468

    @Test func aFixBesideAStretchTheCarGlidedAlongStaysOnTheLegTheCarIsOn() async throws {
        let network = try #require(Self.network)
        let h = await ServerHarness(flags: "", roads: .loaded(network))
        try await h.assignedTrip(
            pickup: Coordinate(lat: 43.7296, lng: 7.4118), dropoff: Coordinate(lat: 43.7318, lng: 7.4205),
            driverAt: Self.roundTheTop[0].fix)
        var riders = await TopicReader(h.services.bus, .trip("trip-1"))
        var pins: [Int] = []
        for (seq, (seconds, fix, heading)) in Self.roundTheTop.enumerated() {
            h.advance(seconds: max(seconds, 1))
            await h.sendFix("driver-1", seq: Int64(10 + seq), at: fix, heading: heading, speed: 6)
            let moved = try #require(try await RoadRoutingTests.moves(&riders, h).last)
            pins.append(network.snap(moved.coordinate, heading: moved.heading, radius: 1)?.edge ?? -1)
        }
        // Up the outbound leg, past the top, on the way down: no pin on the top stretch.
        #expect(pins == [20473, Self.outboundLegTheOtherWay + 1, Self.outboundLegTheOtherWay + 1, 20463, 20459])
        #expect(network.isSameStretch(Self.topStretchDown, Self.topStretchDown + 1))
        // Afresh, the fix goes on the top stretch driven down, 9 m off: the stretch the car glided up 3-6 s before.
        let afresh = try #require(network.snap(Self.towardsTheTop, heading: 249, radius: 25))
        #expect(afresh.edge == Self.topStretchDown)
        #expect(Int(afresh.distance.rounded()) == 9)
        h.advance(seconds: 1)
        await h.sendFix("driver-1", seq: 20, at: Self.towardsTheTop, heading: 249, speed: 6)
        let moved = try #require(try await RoadRoutingTests.moves(&riders, h).last)
        // Shown on the way down (edge 20457), 12 m from the fix and 21 m from the top stretch's point, 5 m on.
        #expect(network.snap(moved.coordinate, heading: moved.heading, radius: 1)?.edge == 20457)
        #expect(Int(moved.coordinate.distance(to: Self.towardsTheTop).rounded()) == 12)
        #expect(Int(moved.coordinate.distance(to: afresh.coordinate).rounded()) == 21)
        let path = try #require(try moved.pathCoordinates())
        #expect(Int(path.pathLength.rounded()) == 5)
    }

    /// The fixes of the car going up the outbound leg, heading 60 degrees, before it reached the hairpin.
    static let up = [
        Coordinate(lat: 43.7306659, lng: 7.4140014), Coordinate(lat: 43.7306852, lng: 7.414061),
    ]

    @Test func aCarThatTurnsRoundOnItsStreetIsShownTurnedRound() async throws {
        let network = try #require(Self.network)
        let h = await ServerHarness(flags: "", roads: .loaded(network))
        try await h.assignedTrip(
            pickup: Coordinate(lat: 43.7296, lng: 7.4118), dropoff: Coordinate(lat: 43.7318, lng: 7.4205),
            driverAt: Self.up[0])
        var riders = await TopicReader(h.services.bus, .trip("trip-1"))
        for (seq, fix) in Self.up.enumerated() {
            h.advance(seconds: 1)
            await h.sendFix("driver-1", seq: Int64(10 + seq), at: fix, heading: 60, speed: 6)
        }
        let up = try #require(try await RoadRoutingTests.moves(&riders, h).last)
        #expect(network.snap(up.coordinate, heading: 60, radius: 1)?.edge == Self.outboundLegTheOtherWay + 1)
        // Turned round where it was: the fix lies on the leg it drove up, heading down it.
        h.advance(seconds: 2)
        await h.sendFix("driver-1", seq: 12, at: Self.up[0], heading: 243, speed: 6)
        let down = try #require(try await RoadRoutingTests.moves(&riders, h).last)
        let turned = try #require(network.snap(Self.up[0], heading: 243, radius: 25))
        #expect(turned.edge == Self.outboundLegTheOtherWay)
        #expect(down.coordinate == turned.coordinate)
    }
}
