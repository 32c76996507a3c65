import Foundation
import HailCore
import Testing

/// A car on a street along the corridor's edge: its matched positions fall on either side of 100 m, and only one
/// back well inside the corridor ends its excursion (issue 41, Monaco's wrong turns alarmed up to 31 s late).
@Suite("Route deviation at the corridor's edge, pure")
struct RouteDeviationAtTheCorridorsEdgeTests {
    typealias T = TripWatchDetectorTests

    /// The seconds at which `easts` (metres east of the plan, one a second) were reported, and the first report.
    static func drive(_ easts: [Double]) -> (at: [Int], first: RouteDeviationDetector.Deviation?) {
        var detector = RouteDeviationDetector(plan: T.plan)
        var at: [Int] = []
        var first: RouteDeviationDetector.Deviation?
        for (second, east) in easts.enumerated() {
            if let deviation = detector.observe(T.at(north: 400, east: east), at: T.time(Double(second))) {
                at.append(second)
                first = first ?? deviation
            }
        }
        return (at, first)
    }

    @Test func onePositionJustInsideTheCorridorDoesNotRestartTheExcursion() {
        // Out at 1 s; at 4 s one position at 95 m, then out again and on, away.
        let easts: [Double] = [0, 110, 115, 112, 95, 104, 106, 108, 109, 111, 112, 118, 125, 130, 135, 140]
        let (at, first) = Self.drive(easts)
        // Ten seconds after it left at 1 s, and farther than then: reported at 11 s, not at 15 s from the 104 m.
        #expect(at == [11])
        #expect(first?.since == T.time(1))
        #expect(first.map { $0.distanceMeters.rounded() } == 118)
    }

    @Test func aCarBackWellInsideTheCorridorEndsTheExcursion() {
        // Out at 1 s, back at 60 m at 4 s (a street near the plan), out again at 6 s and away.
        let easts: [Double] = [0, 110, 120, 90, 60, 70, 105, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200, 210]
        let (at, first) = Self.drive(easts)
        #expect(at == [16])
        #expect(first?.since == T.time(6))
        #expect(first.map { $0.distanceMeters.rounded() } == 200)
    }

    @Test func aCarBetweenTheReentryDistanceAndTheEdgeHasNotLeft() {
        // 80 to 99 m for a minute: inside the corridor throughout, whatever its positions' order.
        let easts = (0...60).map { 80 + Double(($0 * 7) % 20) }
        #expect(Self.drive(easts).at.isEmpty)
    }
}
