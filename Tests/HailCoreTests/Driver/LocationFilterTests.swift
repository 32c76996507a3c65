import Foundation
import HailCore
import HailTesting
import Testing

struct LocationFilterTests {
    static let t0 = Date(timeIntervalSinceReferenceDate: 0)
    static let origin = Coordinate(lat: 48.137, lng: 11.575)

    static func fix(
        _ coordinate: Coordinate = origin,
        accuracy: Double = 5,
        at seconds: TimeInterval = 0,
        heading: Double = 0,
        speed: Double = 0
    ) -> LocationPoint {
        LocationPoint(
            lat: coordinate.lat,
            lng: coordinate.lng,
            accuracy: accuracy,
            heading: heading,
            speed: speed,
            t: t0.addingTimeInterval(seconds)
        )
    }

    /// The coordinate `meters` due north of `origin` (along a meridian the haversine distance is R * dlat).
    static func north(_ meters: Double) -> Coordinate {
        Coordinate(lat: origin.lat + meters / Coordinate.earthRadiusMeters * 180 / .pi, lng: origin.lng)
    }

    @Test(arguments: [0.0, 5, 49.999, 50])
    func accuracyUpToFiftyMetresIsKept(accuracy: Double) {
        var filter = LocationFilter()
        #expect(filter.evaluate(Self.fix(accuracy: accuracy)) == .accept)
    }

    @Test(arguments: [50.001, 51, 80, 1000])
    func accuracyWorseThanFiftyMetresIsDropped(accuracy: Double) {
        var filter = LocationFilter()
        #expect(filter.evaluate(Self.fix(accuracy: accuracy)) == .reject(.poorAccuracy))
        #expect(filter.counts.poorAccuracy == 1)
        #expect(filter.lastAccepted == nil)
    }

    @Test(arguments: [
        fix(Coordinate(lat: .nan, lng: 11)),
        fix(Coordinate(lat: 91, lng: 11)),
        fix(Coordinate(lat: 48, lng: -180.5)),
        fix(Coordinate(lat: 48, lng: .infinity)),
        fix(accuracy: -1),
        fix(accuracy: .nan),
        fix(heading: .nan),
        fix(speed: .infinity),
    ])
    func invalidValuesAreDropped(point: LocationPoint) {
        var filter = LocationFilter()
        #expect(filter.evaluate(point) == .reject(.invalid))
        #expect(filter.counts.invalid == 1)
    }

    @Test func aTimeThatIsNotANumberIsInvalid() {
        // Kept out of the parameterised test: Foundation crashes describing a NaN Date.
        var filter = LocationFilter()
        let point = LocationPoint(
            lat: 48, lng: 11, accuracy: 5, heading: 0, speed: 0, t: Date(timeIntervalSinceReferenceDate: .nan))
        let verdict = filter.evaluate(point)
        #expect(verdict == .reject(.invalid))
    }

    @Test func unknownHeadingAndSpeedAreNotInvalid() {
        var filter = LocationFilter()
        #expect(filter.evaluate(Self.fix(heading: -1, speed: -1)) == .accept)
    }

    @Test(arguments: [10.0, 1, 0.5, 60])
    func exactlyTwoHundredKilometresAnHourIsKept(seconds: TimeInterval) {
        var filter = LocationFilter()
        _ = filter.evaluate(Self.fix())
        let meters = 200 / 3.6 * seconds
        #expect(filter.evaluate(Self.fix(Self.north(meters), at: seconds)) == .accept)
    }

    @Test(arguments: [10.0, 1, 0.5, 60])
    func aHundredthOfAKilometreAnHourFasterIsDropped(seconds: TimeInterval) {
        var filter = LocationFilter()
        _ = filter.evaluate(Self.fix())
        let meters = 200.01 / 3.6 * seconds
        #expect(filter.evaluate(Self.fix(Self.north(meters), at: seconds)) == .reject(.impossibleSpeed))
        #expect(filter.counts.impossibleSpeed == 1)
    }

    @Test func speedIsMeasuredFromTheLastAcceptedFix() {
        var filter = LocationFilter()
        #expect(filter.evaluate(Self.fix(at: 0)) == .accept)
        // A teleport 3 km away one second later...
        #expect(filter.evaluate(Self.fix(Self.north(3000), at: 1)) == .reject(.impossibleSpeed))
        // ...does not become the reference: the next real fix, 15 m on, is kept.
        #expect(filter.evaluate(Self.fix(Self.north(15), at: 2)) == .accept)
        #expect(filter.lastAccepted?.t == Self.t0.addingTimeInterval(2))
    }

    @Test func aTrueJumpIsKeptOnceTimeMakesItPossible() {
        var filter = LocationFilter()
        _ = filter.evaluate(Self.fix(at: 0))
        // 500 m needs 9 s at 200 km/h: rejected at 8 s, kept at 9 s.
        #expect(filter.evaluate(Self.fix(Self.north(500), at: 8)) == .reject(.impossibleSpeed))
        #expect(filter.evaluate(Self.fix(Self.north(500), at: 9)) == .accept)
    }

    @Test func duplicateAndEarlierTimesAreOutOfOrder() {
        var filter = LocationFilter()
        #expect(filter.evaluate(Self.fix(at: 10)) == .accept)
        #expect(filter.evaluate(Self.fix(Self.north(1), at: 10)) == .reject(.outOfOrder))
        #expect(filter.evaluate(Self.fix(Self.north(1), at: 9)) == .reject(.outOfOrder))
        #expect(filter.evaluate(Self.fix(Self.north(1), at: 10.5)) == .accept)
        #expect(filter.counts.outOfOrder == 2)
    }

    @Test func aStationaryCarKeepsReporting() {
        var filter = LocationFilter()
        for second in 0..<30 {
            #expect(filter.evaluate(Self.fix(at: TimeInterval(second))) == .accept)
        }
        #expect(filter.counts.accepted == 30)
        #expect(filter.counts.rejected == 0)
    }

    @Test func accuracyIsJudgedBeforeOrderAndSpeed() {
        var filter = LocationFilter()
        _ = filter.evaluate(Self.fix(at: 5))
        #expect(filter.evaluate(Self.fix(Self.north(5000), accuracy: 80, at: 4)) == .reject(.poorAccuracy))
        #expect(filter.evaluate(Self.fix(Self.north(5000), at: 4)) == .reject(.outOfOrder))
    }

    @Test func countsAreReadableByReasonAndSurviveEncoding() throws {
        var filter = LocationFilter()
        _ = filter.evaluate(Self.fix(at: 0))
        _ = filter.evaluate(Self.fix(accuracy: 99, at: 1))
        _ = filter.evaluate(Self.fix(at: 0))
        let decoded = try JSONDecoder().decode(LocationFilter.self, from: JSONEncoder().encode(filter))
        #expect(decoded == filter)
        #expect(LocationFilter.Reason.allCases.map { decoded.counts[$0] } == [0, 1, 1, 0])
        #expect(decoded.counts.accepted == 1)
        #expect(decoded.counts.rejected == 2)
    }

    // MARK: - The real Munich drive

    /// The Munich trace with deterministic faults: every 100th fix at 80 m accuracy, five teleports 3 km
    /// north half a second after a real fix, two exact duplicates and two late fixes from 5 s earlier,
    /// and two invalid fixes.
    static func corruptedMunich(_ clean: [LocationPoint]) -> [LocationPoint] {
        var points: [LocationPoint] = []
        for (index, original) in clean.enumerated() {
            var point = original
            if (index + 1) % 100 == 0 { point.accuracy = 80 }
            points.append(point)
            if [150, 350, 550, 750, 950].contains(index) {
                var teleport = original
                let moved = Coordinate(
                    lat: original.lat + 3000 / Coordinate.earthRadiusMeters * 180 / .pi, lng: original.lng)
                teleport.lat = moved.lat
                teleport.lng = moved.lng
                teleport.t = original.t.addingTimeInterval(0.5)
                points.append(teleport)
            }
            if [200, 800].contains(index) { points.append(original) }
            if [400, 1000].contains(index) {
                var late = clean[index - 5]
                late.accuracy = 5
                points.append(late)
            }
            if index == 300 {
                var broken = original
                broken.lat = .nan
                broken.t = original.t.addingTimeInterval(0.25)
                points.append(broken)
            }
            if index == 900 {
                var broken = original
                broken.accuracy = -1
                broken.t = original.t.addingTimeInterval(0.25)
                points.append(broken)
            }
        }
        return points
    }

    @Test(.enabled(if: SharedData.isAvailable, "needs ../shared/data/traces/barefoot-munich (the real Munich trace)"))
    func realMunichDriveKeepsExactlyTheRightFixes() throws {
        let clean = try #require(try BarefootTrace.munich(), "traces/barefoot-munich/x0001-001.json is missing")
        #expect(clean.count == 1194)
        let input = Self.corruptedMunich(clean)
        #expect(input.count == 1194 + 5 + 4 + 2)

        var filter = LocationFilter()
        var kept: [LocationPoint] = []
        for point in input where filter.evaluate(point) == .accept { kept.append(point) }

        #expect(filter.counts.poorAccuracy == 11)
        #expect(filter.counts.outOfOrder == 4)
        #expect(filter.counts.invalid == 2)
        // 5 injected teleports, plus 10 real fixes after the GPS froze for 19 s and re-acquired 470 m on.
        #expect(filter.counts.impossibleSpeed == 15)
        #expect(filter.counts.accepted == 1173)
        #expect(kept.count == 1173)
        #expect(filter.counts.accepted + filter.counts.rejected == input.count)

        // Every fix right after a rejected teleport is kept.
        for index in [150, 350, 550, 750, 950] {
            #expect(kept.contains(clean[index + 1]))
        }
        // Long stationary stretches (repeated coordinates, increasing time) are kept.
        let repeats = zip(kept, kept.dropFirst()).filter { $0.coordinate == $1.coordinate }.count
        #expect(repeats == 302)
        // What remains is in strictly increasing time and never faster than 200 km/h.
        for (previous, next) in zip(kept, kept.dropFirst()) {
            let elapsed = next.t.timeIntervalSince(previous.t)
            #expect(elapsed > 0)
            #expect(previous.coordinate.distance(to: next.coordinate) / elapsed <= 200 / 3.6 * (1 + 1e-6))
        }
    }
}
