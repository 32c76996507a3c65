import Foundation
import HailCore
import Testing

@Suite("ETA smoothing")
struct EtaSmootherTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    @Test(arguments: [(0, 0), (1, 1), (60, 1), (61, 2), (240, 4), (241, 5), (-5, 0)])
    func minutesRoundUp(seconds: Int, minutes: Int) {
        #expect(EtaSmoother.minutes(forSeconds: seconds) == minutes)
    }

    @Test func aFourSixFourFlipNeverReachesTheScreen() {
        var smoother = EtaSmoother()
        var shown: [Int?] = []
        for (index, seconds) in [240, 360, 240, 360, 240, 360, 240].enumerated() {
            shown.append(smoother.told(seconds, at: Double(index * 3)))
        }
        #expect(shown == [4, 4, 4, 4, 4, 4, 4])
    }

    @Test func aChangeThatPersistsForTheHoldIsShown() {
        var smoother = EtaSmoother(hold: 8)
        smoother.told(240, at: 0)
        #expect(smoother.told(360, at: 3) == 4)
        #expect(smoother.told(350, at: 10.999) == 4)
        #expect(smoother.told(400, at: 11) == 7)
    }

    @Test func aSteadyCountdownFollowsWithinTheHold() {
        var smoother = EtaSmoother(hold: 8)
        var shown: [Int?] = []
        // The real ETA falls a minute every 60 s; updates every 3 s.
        for step in 0...45 {
            shown.append(smoother.told(300 - step * 3, at: Double(step * 3)))
        }
        #expect(shown.first == 5)
        #expect(shown.last == 3)
        #expect(shown.compactMap { $0 } == shown.compactMap { $0 }.sorted(by: >))
    }

    @Test func noMinutesWhileTheDriverIsLocatingAndTheNextValueShowsAtOnce() {
        var smoother = EtaSmoother()
        smoother.told(240, at: 0)
        #expect(smoother.told(240, fix: .none, at: 3) == nil)
        #expect(smoother.told(600, at: 6) == 10)
        #expect(smoother.told(nil, at: 9) == nil)
    }

    @Test func aValueCloseToTheOneBeforeAGapIsHeldAgainstIt() {
        var smoother = EtaSmoother()
        smoother.told(240, at: 0)
        #expect(smoother.told(nil, fix: .none, at: 3) == nil)
        // Back 25 s later at 5 min: 4 min comes back, and 5 shows only once it has lasted the 8 s hold.
        #expect(smoother.told(290, at: 28) == 4)
        #expect(smoother.told(285, at: 32) == 4)
        #expect(smoother.told(280, at: 36) == 5)
        // A gap longer than a minute forgets it: the first value shows at once.
        smoother.told(nil, fix: .none, at: 40)
        #expect(smoother.told(200, at: 101) == 4)
    }

    @Test func theMinutesCountDownByThemselvesAtTheMinuteNotAfterTheHold() {
        var smoother = EtaSmoother(hold: 8)
        // The server promises the same arrival, 185 s on, with every update.
        func shown(at seconds: Double) -> Int? { smoother.told(Int(185 - seconds), at: seconds) }
        #expect(shown(at: 0) == 4)
        #expect(shown(at: 4) == 4)
        // 179 s left: 3 min at once, a countdown and no change of mind; 59 s left: 1 min.
        #expect(shown(at: 6) == 3)
        #expect(shown(at: 126) == 1)
        // Between server updates too: the promise is an arrival time, not a number of seconds.
        smoother.observe(arrival: Self.at(185), fixTakenAt: Self.at(186), at: Self.at(186))
        #expect(smoother.shown(at: Self.at(186)) == 0)
        #expect(smoother.promise(at: Self.at(186)) == Self.at(185))
    }

    @Test func aCarAFewSecondsLateIsStillArrivingNotOneMinuteAwayAgain() {
        var smoother = EtaSmoother(hold: 8)
        #expect(smoother.told(50, at: 0) == 1)
        #expect(smoother.told(2, at: 48) == 1)
        // The promised arrival has come; the car is 20 s away, and still is 10 s later: "now" stays.
        #expect(smoother.told(20, at: 50) == 0)
        #expect(smoother.told(12, at: 60) == 0)
        // Stuck over a minute away for the hold: that is news.
        #expect(smoother.told(90, at: 62) == 0)
        #expect(smoother.told(85, at: 70) == 2)
    }

    @Test func aRelaunchedAppHoldsThePromiseTheKilledOneShowed() {
        // The killed app promised an arrival 240 s after t0, and stored it.
        var relaunched = EtaSmoother(hold: 8)
        relaunched.restore(Self.at(240))
        // Back 25 s later; the server now says 290 s (5 min): 4 min as before, until 5 has lasted the hold.
        #expect(relaunched.told(290, at: 25) == 4)
        #expect(relaunched.told(286, at: 29) == 4)
        #expect(relaunched.told(282, at: 33) == 5)
        // A promise is restored only into a smoother that has none.
        relaunched.restore(Self.t0)
        #expect(relaunched.promise(at: Self.at(33)) == Self.at(315))
        // A restored promise far from the server's estimate is stale: the estimate shows at once.
        var far = EtaSmoother(hold: 8)
        far.restore(Self.at(240))
        #expect(far.told(600, at: 10) == 10)
    }

    @Test func updatingPinStillShowsMinutes() {
        var smoother = EtaSmoother()
        #expect(smoother.told(120, fix: .takenAgo(10), at: 0) == 2)
    }

    // MARK: - Told and asked apart

    @Test func askingChangesNothingAndTheSameInstantAlwaysGetsTheSameAnswer() {
        var smoother = EtaSmoother(hold: 8)
        smoother.told(300, at: 0)
        smoother.told(420, at: 2)
        let before = smoother
        let first = (0...200).map { smoother.shown(at: Self.at(Double($0) / 10)) }
        let again = (0...200).reversed().map { smoother.shown(at: Self.at(Double($0) / 10)) }
        #expect(smoother == before)
        #expect(first == Array(again.reversed()))
        #expect(smoother.promise(at: Self.at(5)) == Self.at(300))
        #expect(smoother.promiseMoves(after: Self.at(5)) == Self.at(10))
        #expect(smoother == before)
    }

    @Test func theHoldRunsOutOnTheClockAloneAtItsInstant() {
        var smoother = EtaSmoother(hold: 8)
        smoother.told(300, at: 0)
        // 7 min from 2 s on: nothing more arrives, yet the screen changes exactly 8 s into the disagreement.
        #expect(smoother.told(420, at: 2) == 5)
        #expect(smoother.promiseMoves(after: Self.at(2)) == Self.at(10))
        #expect(smoother.shown(at: Self.at(9.999)) == 5)
        #expect(smoother.promise(at: Self.at(9.999)) == Self.at(300))
        #expect(smoother.shown(at: Self.at(10)) == 7)
        #expect(smoother.promise(at: Self.at(10)) == Self.at(422))
        #expect(smoother.promiseMoves(after: Self.at(10)) == nil)
    }

    @Test func aChangedValueInsideTheHoldKeepsItRunningAndTheNewestIsShownAfterIt() {
        var smoother = EtaSmoother(hold: 8)
        smoother.told(300, at: 0)
        // Later at 2 s (7 min), later still at 6 s (6 min): one disagreement since 2 s, and at 10 s the newest.
        smoother.told(420, at: 2)
        #expect(smoother.told(340, at: 6) == 5)
        #expect(smoother.promiseMoves(after: Self.at(6)) == Self.at(10))
        #expect(smoother.shown(at: Self.at(10)) == 6)
        #expect(smoother.promise(at: Self.at(10)) == Self.at(346))
        // After it, a new disagreement needs a hold of its own.
        #expect(smoother.told(540, at: 12) == 6)
        #expect(smoother.shown(at: Self.at(19.999)) == 6)
        #expect(smoother.shown(at: Self.at(20)) == 9)
    }

    @Test func aValueTheOtherWayInsideTheHoldStartsItOver() {
        var smoother = EtaSmoother(hold: 8)
        smoother.told(300, at: 0)
        smoother.told(420, at: 2)
        // Sooner at 6 s (4 min against the promised 5): the later disagreement is over, a sooner one begins.
        #expect(smoother.told(240, at: 6) == 5)
        #expect(smoother.shown(at: Self.at(10)) == 5)
        #expect(smoother.promiseMoves(after: Self.at(6)) == Self.at(14))
        #expect(smoother.shown(at: Self.at(13.999)) == 5)
        #expect(smoother.shown(at: Self.at(14)) == 4)
    }

    /// A resync at 5 s reads the estimate again: from the fix it came with, or a newer fix that says the same.
    @Test(arguments: [2.0, 5.0])
    func theSameEstimateToldAgainAsAResyncReadsItDoesNotStartTheHoldOver(fixSecond: Double) {
        var smoother = EtaSmoother(hold: 8)
        smoother.told(300, at: 0)
        smoother.observe(arrival: Self.at(422), fixTakenAt: Self.at(2), at: Self.at(2))
        smoother.observe(arrival: Self.at(422), fixTakenAt: Self.at(fixSecond), at: Self.at(5))
        // The hold still runs out 8 s after the disagreement began at 2 s.
        #expect(smoother.shown(at: Self.at(9.999)) == 5)
        #expect(smoother.shown(at: Self.at(10)) == 7)
    }

    @Test func theMinutesGoTheInstantThePinTurnsLocatingWithNothingObserved() {
        var smoother = EtaSmoother(hold: 8)
        smoother.told(300, at: 0)
        #expect(smoother.shown(at: Self.at(19.999)) == 5)
        #expect(smoother.shown(at: Self.at(20)) == nil)
        // A disagreement the pin outlives by less than the hold never moves the promise.
        var short = EtaSmoother(hold: 8)
        short.told(300, at: 0)
        short.observe(arrival: Self.at(420), fixTakenAt: Self.at(0), at: Self.at(15))
        #expect(short.promiseMoves(after: Self.at(15)) == nil)
        #expect(short.shown(at: Self.at(19.999)) == 5)
        #expect(short.promise(at: Self.at(30)) == Self.at(300))
    }

    /// The minutes of two arrivals 5 s apart differ for 5 s a minute only, as a rounding: never the hold long.
    @Test func aDifferenceThatRoundingShowsForSecondsAMinuteNeverMovesThePromise() {
        var smoother = EtaSmoother(hold: 8)
        smoother.told(240, at: 0)
        // 245 s from 1 s on reads 5 min until 6 s, against the promise's 4: then both say 4 until 60 s, and from
        // 60 s to 66 s 4 against 3. Each time the difference goes before the 8 s hold.
        smoother.observe(arrival: Self.at(246), fixTakenAt: Self.at(1), at: Self.at(1))
        #expect(smoother.shown(at: Self.at(1)) == 4)
        #expect(smoother.promiseMoves(after: Self.at(1)) == nil)
        #expect(smoother.shown(at: Self.at(9)) == 4)
        #expect(smoother.promise(at: Self.at(20.999)) == Self.at(240))
        // A newer fix keeps the pin live through the next minute's rounding.
        smoother.observe(arrival: Self.at(246), fixTakenAt: Self.at(58), at: Self.at(58))
        #expect(smoother.shown(at: Self.at(62)) == 3)
        #expect(smoother.shown(at: Self.at(66)) == 3)
        #expect(smoother.promise(at: Self.at(70)) == Self.at(240))
    }

    /// The smoother asked at every tenth of a second, and advanced to each, against one told only what changed.
    @Test func aScreenDrawnOftenAndOneDrawnRarelyShowTheSameMinutes() {
        var generator = SplitMix64(seed: 19)
        var rare = EtaSmoother(hold: 8)
        var often = EtaSmoother(hold: 8)
        var next = 0.0
        var arrival = 600.0
        for tenth in 0...3_000 {
            let now = Double(tenth) / 10
            if now >= next {
                // An update every 2 to 4 s, its estimate wandering by up to 40 s either way.
                arrival += Double(Int.random(in: -40...40, using: &generator))
                rare.observe(arrival: Self.at(arrival), fixTakenAt: Self.at(now), at: Self.at(now))
                often.observe(arrival: Self.at(arrival), fixTakenAt: Self.at(now), at: Self.at(now))
                next = now + Double(Int.random(in: 20...40, using: &generator)) / 10
            }
            often.advance(to: Self.at(now))
            #expect(often.shown(at: Self.at(now)) == rare.shown(at: Self.at(now)), "at \(now) s")
        }
        #expect(often.promise(at: Self.at(300)) == rare.promise(at: Self.at(300)))
    }
}

/// How old the fix behind the pin is when an update is told.
enum Fix {
    /// Taken as the update is told.
    case fresh
    /// Taken `seconds` before.
    case takenAgo(Double)
    /// No fix: the pin is locating.
    case none
}

extension EtaSmoother {
    /// Tells the smoother the server's ETA of `seconds` (nil: none) at `seconds` after `t0` with `fix`, and
    /// returns the minutes then on screen.
    @discardableResult
    mutating func told(_ etaSeconds: Int?, fix: Fix = .fresh, at seconds: Double) -> Int? {
        let now = EtaSmootherTests.at(seconds)
        let fixTakenAt: Date? =
            switch fix {
            case .fresh: now
            case .takenAgo(let age): now.addingTimeInterval(-age)
            case .none: nil
            }
        observe(etaSeconds: etaSeconds, fixTakenAt: fixTakenAt, at: now)
        return shown(at: now)
    }
}
