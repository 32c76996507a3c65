import Foundation
import HailCore
import Testing

@Suite("Geo math")
struct GeoTests {
    static let casino = Coordinate(lat: 43.7396, lng: 7.4276)
    static let palace = Coordinate(lat: 43.7314, lng: 7.4197)

    @Test func haversineDistanceAcrossMonaco() {
        #expect(Int(Self.casino.distance(to: Self.palace).rounded()) == 1111)
        #expect(Self.casino.distance(to: Self.casino) == 0)
    }

    @Test func oneDegreeOfLatitudeIsAbout111Kilometres() {
        let d = Coordinate(lat: 0, lng: 0).distance(to: Coordinate(lat: 1, lng: 0))
        #expect(Int(d.rounded()) == 111_195)
    }

    @Test(arguments: [
        (Coordinate(lat: 0, lng: 0), Coordinate(lat: 1, lng: 0), 0.0),
        (Coordinate(lat: 0, lng: 0), Coordinate(lat: 0, lng: 1), 90.0),
        (Coordinate(lat: 1, lng: 0), Coordinate(lat: 0, lng: 0), 180.0),
        (Coordinate(lat: 0, lng: 1), Coordinate(lat: 0, lng: 0), 270.0),
    ])
    func initialBearingOfTheCardinalDirections(from: Coordinate, to: Coordinate, expected: Double) {
        #expect(abs(from.bearing(to: to) - expected) < 1e-9)
    }

    @Test func bearingBetweenEqualPointsIsZero() {
        #expect(Self.casino.bearing(to: Self.casino) == 0)
    }

    @Test func pointAtAFractionOfASegmentIsClamped() {
        let a = Coordinate(lat: 0, lng: 0)
        let b = Coordinate(lat: 10, lng: 4)
        #expect(a.interpolated(to: b, fraction: 0.5) == Coordinate(lat: 5, lng: 2))
        #expect(a.interpolated(to: b, fraction: -1) == a)
        #expect(a.interpolated(to: b, fraction: 2) == b)
    }

    @Test func pointAlongAPolylineWalksItsLength() throws {
        // An L: 1 km north then 1 km east; half way is the corner, three quarters is half way east.
        let corner = Coordinate(lat: 0.008993216, lng: 0)
        let end = Coordinate(lat: 0.008993216, lng: 0.008993216)
        let path = [Coordinate(lat: 0, lng: 0), corner, end]
        #expect(Int(path.pathLength.rounded()) == 2000)
        let half = try #require(path.point(atFraction: 0.5))
        #expect(half.coordinate.distance(to: corner) < 0.01)
        #expect(abs(half.bearing - 0) < 1e-6)
        let threeQuarters = try #require(path.point(atFraction: 0.75))
        #expect(threeQuarters.coordinate.distance(to: Coordinate(lat: 0.008993216, lng: 0.004496608)) < 0.01)
        #expect(abs(threeQuarters.bearing - 90) < 0.01)
        #expect(try #require(path.point(atFraction: 1)).coordinate == end)
        #expect([Coordinate]().point(atFraction: 0.5) == nil)
    }
}

@Suite("Headings")
struct HeadingTests {
    @Test(arguments: [
        (350.0, 10.0, 20.0),
        (10.0, 350.0, -20.0),
        (0.0, 180.0, 180.0),
        (180.0, 0.0, 180.0),
        (90.0, 90.0, 0.0),
        (-30.0, 30.0, 60.0),
        (720.0, 45.0, 45.0),
    ])
    func shortestTurnGoesTheShortWayRound(from: Double, to: Double, turn: Double) {
        #expect(Heading.shortestTurn(from: from, to: to) == turn)
    }

    @Test func normalizedFoldsIntoZeroTo360() {
        #expect(Heading.normalized(-90) == 270)
        #expect(Heading.normalized(360) == 0)
        #expect(Heading.normalized(725) == 5)
        #expect(Heading.normalized(-0.0).sign == .plus)
    }

    @Test func interpolatedHeadingCrossesNorth() {
        #expect(Heading.interpolated(from: 350, to: 10, fraction: 0.5) == 0)
        #expect(Heading.interpolated(from: 350, to: 10, fraction: 0.25) == 355)
    }
}

@Suite("Encoded polyline")
struct PolylineTests {
    // Google's documented example.
    static let points = [
        Coordinate(lat: 38.5, lng: -120.2), Coordinate(lat: 40.7, lng: -120.95), Coordinate(lat: 43.252, lng: -126.453),
    ]

    @Test func encodesGooglesExample() {
        #expect(Polyline.encode(Self.points) == "_p~iF~ps|U_ulLnnqC_mqNvxq`@")
    }

    @Test func decodesGooglesExample() throws {
        #expect(try Polyline.decode("_p~iF~ps|U_ulLnnqC_mqNvxq`@") == Self.points)
    }

    @Test func roundTripsAtPrecisionSix() throws {
        let monaco = [Coordinate(lat: 43.739612, lng: 7.427601), Coordinate(lat: 43.731405, lng: 7.419702)]
        #expect(try Polyline.decode(Polyline.encode(monaco, precision: 6), precision: 6) == monaco)
        #expect(Polyline.encode([]) == "")
    }

    @Test(arguments: ["_p~iF", "_p~iF~ps|U_", " ", "_p~iF~ps|U\u{7f}"])
    func rejectsBrokenInput(encoded: String) {
        #expect(throws: Polyline.DecodingError.self) { try Polyline.decode(encoded) }
    }

    @Test func namesTheOffsetOfTheBadCharacter() {
        #expect(throws: Polyline.DecodingError(offset: 0, reason: "character outside the polyline alphabet")) {
            try Polyline.decode(" ")
        }
    }
}
