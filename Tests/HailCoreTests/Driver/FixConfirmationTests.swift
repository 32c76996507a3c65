import Foundation
import HailCore
import Testing

/// Issue 14, sixth pass: the first fix out of a tunnel was a multipath outlier near where the car went in, 25 s
/// before; it passed the speed check on the gap's allowance and the rider's pin said "live" there.
@Suite("The fix after a silence waits for the next")
struct FixConfirmationTests {
    static let t0 = Date(timeIntervalSinceReferenceDate: 0)

    /// A fix `meters` due north of a Monaco origin at `seconds`, at `speed` m/s, 5 m accurate.
    static func fix(north meters: Double, at seconds: Double, speed: Double = 10, accuracy: Double = 5) -> LocationPoint
    {
        LocationPoint(
            lat: 43.73 + meters / Coordinate.earthRadiusMeters * 180 / .pi, lng: 7.42, accuracy: accuracy, heading: 0,
            speed: speed, t: t0.addingTimeInterval(seconds))
    }

    @Test func anOutlierIsDroppedWhenTheNextFixDisagreesAndTheNextPairIsBelieved() {
        var check = FixConfirmation()
        // Out of a 25 s tunnel the car is 300 m on; the first fix lands 250 m back, near where it went in.
        let outlier = Self.fix(north: 50, at: 30)
        check.wait(on: outlier)
        #expect(check.deadline == Self.t0.addingTimeInterval(35))
        let first = Self.fix(north: 310, at: 31)
        #expect(check.next(first) == [])
        #expect(check.waiting == first)
        #expect(check.dropped == 1)
        let second = Self.fix(north: 320, at: 32)
        #expect(check.next(second) == [first, second])
        #expect(check.waiting == nil)
        #expect(check.deadline == nil)
        // Nothing waits: a fix passes straight through.
        let third = Self.fix(north: 330, at: 33)
        #expect(check.next(third) == [third])
    }

    /// At 10 m/s for a second, a quarter more, and two 5 m radii: 22.5 m.
    @Test(arguments: [(22.4, true), (22.6, false)])
    func twoFixesAgreeUpToTheFasterSpeedsReachAndBothAccuracies(metres: Double, agree: Bool) {
        let earlier = Self.fix(north: 0, at: 0, speed: 4)
        let later = Self.fix(north: metres, at: 1, speed: 10)
        #expect(FixConfirmation.agree(earlier, later) == agree)
    }

    @Test func withoutASpeedTheSpeedChecksLimitDecides() {
        let earlier = Self.fix(north: 0, at: 0, speed: -1)
        #expect(FixConfirmation.agree(earlier, Self.fix(north: 55, at: 1, speed: -1)))
        #expect(!FixConfirmation.agree(earlier, Self.fix(north: 56, at: 1, speed: -1)))
        // A standing phone still reaches a metre a second: noise is not a jump.
        #expect(FixConfirmation.agree(Self.fix(north: 0, at: 0, speed: 0), Self.fix(north: 11, at: 1, speed: 0)))
    }

    @Test func aFixNothingContradictsIsBelievedAfterFiveSeconds() {
        var check = FixConfirmation()
        let lone = Self.fix(north: 300, at: 30, speed: 0)
        check.wait(on: lone)
        #expect(check.expire(now: Self.t0.addingTimeInterval(34.9)) == nil)
        #expect(check.expire(now: Self.t0.addingTimeInterval(35)) == lone)
        #expect(check.waiting == nil)
        #expect(check.dropped == 0)
    }

    @Test func aFixNotTakenAfterTheWaitingOneIsDroppedAndTheWaitGoesOn() {
        var check = FixConfirmation()
        let waiting = Self.fix(north: 300, at: 30)
        check.wait(on: waiting)
        #expect(check.next(Self.fix(north: 305, at: 30)) == [])
        #expect(check.next(Self.fix(north: 290, at: 29)) == [])
        #expect(check.waiting == waiting)
        #expect(check.dropped == 2)
    }
}
