import Foundation
import HailCore
import Testing

@Suite("ETA smoothing")
struct EtaSmootherTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: [(0, 0), (1, 1), (60, 1), (61, 2), (240, 4), (241, 5), (-5, 0)])
    func minutesRoundUp(seconds: Int, minutes: Int) {
        #expect(EtaSmoother.minutes(forSeconds: seconds) == minutes)
    }

    @Test func aFourSixFourFlipNeverReachesTheScreen() {
        var smoother = EtaSmoother()
        var shown: [Int?] = []
        for (index, seconds) in [240, 360, 240, 360, 240, 360, 240].enumerated() {
            shown.append(
                smoother.update(etaSeconds: seconds, pin: .live, at: Self.t0.addingTimeInterval(Double(index * 3))))
        }
        #expect(shown == [4, 4, 4, 4, 4, 4, 4])
    }

    @Test func aChangeThatPersistsForTheHoldIsShown() {
        var smoother = EtaSmoother(hold: 8)
        smoother.update(etaSeconds: 240, pin: .live, at: Self.t0)
        #expect(smoother.update(etaSeconds: 360, pin: .live, at: Self.t0.addingTimeInterval(3)) == 4)
        #expect(smoother.update(etaSeconds: 350, pin: .live, at: Self.t0.addingTimeInterval(10.999)) == 4)
        #expect(smoother.update(etaSeconds: 400, pin: .live, at: Self.t0.addingTimeInterval(11)) == 7)
    }

    @Test func aSteadyCountdownFollowsWithinTheHold() {
        var smoother = EtaSmoother(hold: 8)
        var shown: [Int?] = []
        // The real ETA falls a minute every 60 s; updates every 3 s.
        for step in 0...45 {
            let seconds = 300 - step * 3
            shown.append(
                smoother.update(etaSeconds: seconds, pin: .live, at: Self.t0.addingTimeInterval(Double(step * 3))))
        }
        #expect(shown.first == 5)
        #expect(shown.last == 3)
        #expect(shown.compactMap { $0 } == shown.compactMap { $0 }.sorted(by: >))
    }

    @Test func noMinutesWhileTheDriverIsLocatingAndTheNextValueShowsAtOnce() {
        var smoother = EtaSmoother()
        smoother.update(etaSeconds: 240, pin: .live, at: Self.t0)
        #expect(smoother.update(etaSeconds: 240, pin: .locating, at: Self.t0.addingTimeInterval(3)) == nil)
        #expect(smoother.shownMinutes == nil)
        #expect(smoother.update(etaSeconds: 600, pin: .live, at: Self.t0.addingTimeInterval(6)) == 10)
        #expect(smoother.update(etaSeconds: nil, pin: .live, at: Self.t0.addingTimeInterval(9)) == nil)
    }

    @Test func aValueCloseToTheOneBeforeAGapIsHeldAgainstIt() {
        var smoother = EtaSmoother()
        smoother.update(etaSeconds: 240, pin: .live, at: Self.t0)
        #expect(smoother.update(etaSeconds: nil, pin: .locating, at: Self.t0.addingTimeInterval(3)) == nil)
        // Back 25 s later at 5 min: 4 min comes back, and 5 shows only once it has lasted the 8 s hold.
        #expect(smoother.update(etaSeconds: 290, pin: .live, at: Self.t0.addingTimeInterval(28)) == 4)
        #expect(smoother.update(etaSeconds: 285, pin: .live, at: Self.t0.addingTimeInterval(32)) == 4)
        #expect(smoother.update(etaSeconds: 280, pin: .live, at: Self.t0.addingTimeInterval(36)) == 5)
        // A gap longer than a minute forgets it: the first value shows at once.
        smoother.update(etaSeconds: nil, pin: .locating, at: Self.t0.addingTimeInterval(40))
        #expect(smoother.update(etaSeconds: 200, pin: .live, at: Self.t0.addingTimeInterval(101)) == 4)
    }

    @Test func theMinutesCountDownByThemselvesAtTheMinuteNotAfterTheHold() {
        var smoother = EtaSmoother(hold: 8)
        // The server promises the same arrival, 185 s on, with every update.
        func shown(at seconds: Double) -> Int? {
            smoother.update(etaSeconds: Int(185 - seconds), pin: .live, at: Self.t0.addingTimeInterval(seconds))
        }
        #expect(shown(at: 0) == 4)
        #expect(shown(at: 4) == 4)
        // 179 s left: 3 min at once, a countdown and no change of mind; 59 s left: 1 min.
        #expect(shown(at: 6) == 3)
        #expect(shown(at: 126) == 1)
        // Between server updates too: the promise is an arrival time, not a number of seconds.
        #expect(
            smoother.update(arrival: Self.t0.addingTimeInterval(185), pin: .live, at: Self.t0.addingTimeInterval(186))
                == 0)
        #expect(smoother.promise == Self.t0.addingTimeInterval(185))
    }

    @Test func aCarAFewSecondsLateIsStillArrivingNotOneMinuteAwayAgain() {
        var smoother = EtaSmoother(hold: 8)
        #expect(smoother.update(etaSeconds: 50, pin: .live, at: Self.t0) == 1)
        #expect(smoother.update(etaSeconds: 2, pin: .live, at: Self.t0.addingTimeInterval(48)) == 1)
        // The promised arrival has come; the car is 20 s away, and still is 10 s later: "now" stays.
        #expect(smoother.update(etaSeconds: 20, pin: .live, at: Self.t0.addingTimeInterval(50)) == 0)
        #expect(smoother.update(etaSeconds: 12, pin: .live, at: Self.t0.addingTimeInterval(60)) == 0)
        // Stuck over a minute away for the hold: that is news.
        #expect(smoother.update(etaSeconds: 90, pin: .live, at: Self.t0.addingTimeInterval(62)) == 0)
        #expect(smoother.update(etaSeconds: 85, pin: .live, at: Self.t0.addingTimeInterval(70)) == 2)
    }

    @Test func aRelaunchedAppHoldsThePromiseTheKilledOneShowed() {
        // The killed app promised an arrival 240 s after t0, and stored it.
        var relaunched = EtaSmoother(hold: 8)
        relaunched.restore(Self.t0.addingTimeInterval(240))
        // Back 25 s later; the server now says 290 s (5 min): 4 min as before, until 5 has lasted the hold.
        #expect(relaunched.update(etaSeconds: 290, pin: .live, at: Self.t0.addingTimeInterval(25)) == 4)
        #expect(relaunched.update(etaSeconds: 286, pin: .live, at: Self.t0.addingTimeInterval(29)) == 4)
        #expect(relaunched.update(etaSeconds: 282, pin: .live, at: Self.t0.addingTimeInterval(33)) == 5)
        // A promise is restored only into a smoother that has none.
        relaunched.restore(Self.t0)
        #expect(relaunched.promise == Self.t0.addingTimeInterval(315))
        // A restored promise far from the server's estimate is stale: the estimate shows at once.
        var far = EtaSmoother(hold: 8)
        far.restore(Self.t0.addingTimeInterval(240))
        #expect(far.update(etaSeconds: 600, pin: .live, at: Self.t0.addingTimeInterval(10)) == 10)
    }

    @Test func updatingPinStillShowsMinutes() {
        var smoother = EtaSmoother()
        #expect(smoother.update(etaSeconds: 120, pin: .updating, at: Self.t0) == 2)
    }
}
