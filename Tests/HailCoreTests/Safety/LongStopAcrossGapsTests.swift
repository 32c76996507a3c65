import Foundation
import HailCore
import Testing

/// A gap in a standing car's positions (a dead zone, a stalled socket, keep-alives far apart) is judged by the
/// positions on either side of it: the same place before and after is one stop, elsewhere after it is a new one.
/// Times are the fixes' own, whenever they reach the server.
@Suite("Long stops across gaps in the positions, pure")
struct LongStopAcrossGapsTests {
    typealias T = TripWatchDetectorTests
    static let dropoff = T.at(north: 2000, east: 0)

    /// The seconds at which `detector` reported a stop, fed `fixes` (second, metres north, metres east) in order.
    static func reports(
        _ detector: inout LongStopDetector, _ fixes: [(Double, Double, Double)], jammed: Bool = false
    ) -> [(Double, Double)] {
        var found: [(Double, Double)] = []
        for (second, north, east) in fixes {
            if let stop = detector.observe(T.at(north: north, east: east), at: T.time(second), jammed: jammed) {
                found.append((second, stop.since.timeIntervalSince(T.t0)))
            }
        }
        return found
    }

    @Test func a220sStopWithA40sGapInTheMiddleIsReportedAt180sOfStanding() {
        var detector = LongStopDetector(dropoff: Self.dropoff)
        // A fix every 10 s, none from 80 s to 120 s (the phone lost the network), up to 8 m of matched wobble.
        let seconds = Array(stride(from: 0.0, through: 80, by: 10)) + Array(stride(from: 120.0, through: 220, by: 10))
        let fixes = seconds.map { ($0, 500 + Double(Int($0) % 3) * 4, 0.0) }
        let found = Self.reports(&detector, fixes)
        #expect(found.map(\.0) == [180])
        #expect(found.map(\.1) == [0])
    }

    @Test func aGapAfterWhichTheCarIs300mAwayStartsTheCountAgain() {
        var detector = LongStopDetector(dropoff: Self.dropoff)
        let before = stride(from: 0.0, through: 80, by: 10).map { ($0, 500.0, 0.0) }
        let after = stride(from: 120.0, through: 400, by: 10).map { ($0, 800.0, 0.0) }
        let found = Self.reports(&detector, before + after)
        // Standing from 120 s where it came out of the gap: 3 minutes at 300 s.
        #expect(found.map(\.0) == [300])
        #expect(found.map(\.1) == [120])
    }

    @Test func aFixInsideTheGapThatIsElsewhereBreaksTheStop() {
        var detector = LongStopDetector(dropoff: Self.dropoff)
        // The backlog flushed on reconnect shows the car 100 m on at 100 s: it did not stand through the gap.
        let fixes =
            stride(from: 0.0, through: 80, by: 10).map { ($0, 500.0, 0.0) } + [(100, 600, 0)]
            + stride(from: 120.0, through: 320, by: 10).map { ($0, 500.0, 0.0) }
        let found = Self.reports(&detector, fixes)
        #expect(found.map(\.0) == [300])
        #expect(found.map(\.1) == [120])
    }

    @Test func aCarDrivingThroughATunnelGapAndOnRaisesNothing() {
        var detector = LongStopDetector(dropoff: Self.dropoff)
        // 10 m/s north, a fix a second, no fix for the 200 s the tunnel takes (a crawl through it), out 600 m on,
        // then at a light for 60 s.
        let into = stride(from: 0.0, through: 50, by: 1).map { ($0, $0 * 10, 0.0) }
        let out = stride(from: 250.0, through: 300, by: 1).map { ($0, 500 + 600 + ($0 - 250) * 10, 0.0) }
        let light = stride(from: 301.0, through: 360, by: 5).map { ($0, 1600.0, 0.0) }
        #expect(Self.reports(&detector, into + out + light).isEmpty)
    }

    @Test func aCarStandingInAJamRaisesNothingGapOrNot() {
        var detector = LongStopDetector(dropoff: Self.dropoff)
        let seconds = Array(stride(from: 0.0, through: 80, by: 10)) + Array(stride(from: 120.0, through: 400, by: 10))
        #expect(Self.reports(&detector, seconds.map { ($0, 500.0, 0.0) }, jammed: true).isEmpty)
    }

    @Test func anOlderFixThanTheLastOneTakenChangesNothing() {
        var detector = LongStopDetector(dropoff: Self.dropoff)
        // Reported at 180 s; a late backlog fix from 150 s, 200 m off, neither undoes it nor starts a new stop.
        let fixes = stride(from: 0.0, through: 180, by: 10).map { ($0, 500.0, 0.0) } + [(150, 700, 0)]
        let more = stride(from: 190.0, through: 400, by: 10).map { ($0, 500.0, 0.0) }
        let found = Self.reports(&detector, fixes + more)
        #expect(found.map(\.0) == [180])
    }
}
