import Foundation
import HailCore
import Testing

@testable import HailSim

@Suite("Judging a rider's screen against where the car truly was")
struct ScreenAuditTests {
    static let start = Coordinate(lat: 43.7300, lng: 7.4200)
    static let metresPerDegree = 111_195.0

    /// `metres` north of the start.
    static func north(_ metres: Double) -> Coordinate {
        Coordinate(lat: start.lat + metres / metresPerDegree, lng: start.lng)
    }

    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_000_000 + seconds) }

    /// A car driving north at 10 m/s for 60 s, then parked for 30 s; sampled once a second.
    static func trace() -> TruthTrace {
        let trace = TruthTrace()
        for second in 0...90 { trace.record(north(Double(min(second, 60)) * 10), at: date(Double(second))) }
        return trace
    }

    static func frame(
        at seconds: Double, state: TripState = .onTrip, version: Int = 4, pin: (metres: Double, receivedAt: Double)?,
        marker: Double?, eta: Int? = nil, says: PinFreshness.Level? = nil, banner: Bool = false
    ) -> ScreenFrame {
        ScreenFrame(
            time: date(seconds), tripID: "trip-1", state: state, version: version, driverID: "driver-1",
            shown: pin.map {
                DriverLocation(coordinate: north($0.metres), heading: 0, seq: 1, receivedAt: date($0.receivedAt))
            },
            marker: marker.map(north), etaMinutes: eta, fare: nil, showsDelayedBanner: banner, pin: says)
    }

    /// What one frame claims of a pin the car left 100 m north at 10 s (received at 11 s), `seconds` on.
    static func claims(
        at seconds: Double, says: PinFreshness.Level?, banner: Bool = false, eta: Int? = nil
    ) -> (over: ScreenOverclaims, under: ScreenUnderclaims) {
        var audit = ScreenAudit()
        let trace = trace()
        audit.observe(frame(at: seconds, pin: (100, 11), marker: nil, eta: eta, says: says, banner: banner)) { _ in
            trace
        }
        audit.finishTrip()
        return (audit.measurements.overclaims, audit.measurements.underclaims)
    }

    /// Overclaims with only `set` counted once.
    static func over(_ set: WritableKeyPath<ScreenOverclaims, Int>) -> ScreenOverclaims {
        var claims = ScreenOverclaims()
        claims[keyPath: set] = 1
        return claims
    }

    /// Underclaims with only `set` counted once.
    static func under(_ set: WritableKeyPath<ScreenUnderclaims, Int>) -> ScreenUnderclaims {
        var claims = ScreenUnderclaims()
        claims[keyPath: set] = 1
        return claims
    }

    @Test func freshnessIsHowLongAgoTheCarStoodWhereThePinIs() {
        let trace = Self.trace()
        var audit = ScreenAudit()
        // The car was 300 m north at 30 s; the server had it at 31 s; the screen shows it at 33.5 s.
        audit.observe(Self.frame(at: 33.5, pin: (300, 31), marker: nil)) { _ in trace }
        // A parked car's position stays true: the car stood at 600 m from 60 s to 90 s.
        audit.observe(Self.frame(at: 90, pin: (600, 62), marker: nil)) { _ in trace }
        #expect(audit.measurements.freshness.count == 2)
        #expect(audit.measurements.freshness.percentile(0.5) == 0)
        #expect(audit.measurements.freshness.percentile(1) == 3.5)
        #expect(audit.measurements.pinsOffTruth == 0)
    }

    @Test func aStoppedCarsLastFixALittleShortOfWhereItStandsIsNotAge() {
        let trace = Self.trace()
        var audit = ScreenAudit()
        // The last fix before the car stopped at 600 m: 8 m short (noise, or the 5 m distance filter).
        // The car has stood there since 60 s; at 90 s the pin still shows where it stands.
        audit.observe(Self.frame(at: 90, pin: (592, 61), marker: nil)) { _ in trace }
        #expect(audit.measurements.freshness.count == 1)
        #expect(audit.measurements.freshness.percentile(1) == 0)
        // 30 m short is not noise: the car was there at 57 s, 33 s ago.
        audit.observe(Self.frame(at: 90, pin: (570, 58), marker: nil)) { _ in trace }
        #expect(audit.measurements.freshness.percentile(1) == 33)
        // A moving car gets no such allowance: 8 m behind it, the pin is 0.8 s old.
        audit.observe(Self.frame(at: 40, pin: (392, 40), marker: nil)) { _ in trace }
        #expect(audit.measurements.freshness.count == 3)
        #expect(audit.measurements.freshness.percentile(0.5) == 0.8)
    }

    @Test func aPinAheadOfTheLastTruthSampleIsMeasuredOnceTheNextOneIsKnown() {
        // North at 10 m/s for 20 s, then back south the same way: the car passes 44 m at 4.4 s and 35.6 s.
        let trace = TruthTrace()
        func drive(_ second: Int) {
            trace.record(Self.north(Double(second <= 20 ? second : 40 - second) * 10), at: Self.date(Double(second)))
        }
        for second in 0...35 { drive(second) }
        var audit = ScreenAudit()
        // The server got a fix at 35.2 s, 6 m ahead of the last sample (noise); the screen shows it at
        // 35.3 s, before the car's next sample: only the pass at 4.4 s is on the trace yet.
        audit.observe(Self.frame(at: 35.3, pin: (44, 35.2), marker: nil)) { _ in trace }
        #expect(audit.measurements.freshness.count == 0)
        drive(36)
        audit.observe(Self.frame(at: 36.1, pin: (44, 35.2), marker: nil)) { _ in trace }
        // Measured against the pass under way: 0.1 s and 0.9 s after the fix arrived, not 31 s.
        #expect(audit.measurements.freshness.count == 2)
        #expect(audit.measurements.freshness.percentile(0.5) == 0.1)
        #expect(audit.measurements.freshness.percentile(1) == 0.9)
        // A trip's last frames are measured when it ends, with the truth there is.
        drive(37)
        audit.observe(Self.frame(at: 37.1, pin: (28, 37.05), marker: nil)) { _ in trace }
        #expect(audit.measurements.freshness.count == 2)
        audit.finishTrip()
        #expect(audit.measurements.freshness.count == 3)
        #expect(audit.measurements.freshness.percentile(1) == 0.9)
    }

    @Test func framesNearATunnelAreReportedApart() {
        // The car drives north at 10 m/s and is in a tunnel from 20 s to 30 s: no fix there.
        let trace = TruthTrace()
        for second in 0...60 {
            trace.record(
                Self.north(Double(second) * 10), at: Self.date(Double(second)), blind: (20...30).contains(second))
        }
        var audit = ScreenAudit()
        // At 35 s the screen still shows the last fix before the tunnel: 16 s old, but the tunnel's fault.
        audit.observe(Self.frame(at: 35, pin: (190, 19.5), marker: nil)) { _ in trace }
        #expect(audit.measurements.freshness.count == 0)
        #expect(audit.measurements.freshnessNearTunnels.percentile(1) == 16)
        // 25 s after leaving it, frames count again.
        audit.observe(Self.frame(at: 55, pin: (540, 54.5), marker: nil)) { _ in trace }
        #expect(audit.measurements.freshness.percentile(1) == 1)
        #expect(audit.measurements.freshnessByState[.onTrip]?.count == 1)
    }

    @Test func aPinNowhereNearTheCarIsCountedNotMeasured() {
        let trace = Self.trace()
        var audit = ScreenAudit()
        // 100 m east of the road: an outlier that got through.
        let frame = ScreenFrame(
            time: Self.date(20), tripID: "trip-1", state: .onTrip, version: 4, driverID: "driver-1",
            shown: DriverLocation(
                coordinate: Coordinate(lat: Self.north(150).lat, lng: Self.start.lng + 0.00125), heading: 0, seq: 1,
                receivedAt: Self.date(16)),
            fare: nil, showsDelayedBanner: false)
        audit.observe(frame) { _ in trace }
        #expect(audit.measurements.freshness.count == 0)
        #expect(audit.measurements.pinsOffTruth == 1)
    }

    @Test func theDrawnCarGoingBackAlongItsPathIsOneBackwardMove() throws {
        let trace = Self.trace()
        var audit = ScreenAudit()
        // Forward 3 m every 0.2 s frame, three seconds behind the car.
        for step in 0..<25 {
            let time = 40 + Double(step) * 0.2
            audit.observe(Self.frame(at: time, pin: nil, marker: (time - 3) * 10)) { _ in trace }
        }
        #expect(audit.measurements.backwardMoves == 0)
        #expect(audit.measurements.renderedLag.percentile(0.99) == 3)
        // Then drawn back over two frames, 38 m and 40 m: to where the car was 8 s before the last
        // frame's place, far from anywhere it has been since: one backward move, not two.
        audit.observe(Self.frame(at: 45, pin: nil, marker: 380)) { _ in trace }
        audit.observe(Self.frame(at: 45.2, pin: nil, marker: 340)) { _ in trace }
        // Two metres back from there (snapping) is within tolerance.
        audit.observe(Self.frame(at: 45.4, pin: nil, marker: 338)) { _ in trace }
        #expect(audit.measurements.backwardMoves == 1)
        #expect(audit.measurements.jumpsOver50m == 0)
        // Jumping 80 m ahead in one frame is a jump, not a backward move.
        audit.observe(Self.frame(at: 45.6, pin: nil, marker: 418)) { _ in trace }
        #expect(audit.measurements.jumpsOver50m == 1)
        // Not a snap (no new fix, the frame before 0.2 s earlier): the report lists it.
        let jump = try #require(audit.measurements.unexplainedJumps.first)
        #expect(audit.measurements.unexplainedJumps.count == 1)
        #expect(
            jump.at == Self.date(45.6).timeIntervalSince1970 && jump.tripID == "trip-1" && jump.driverID == "driver-1")
        #expect(
            (jump.meters * 10).rounded() / 10 == 80 && jump.sinceFrameSeconds.map { ($0 * 10).rounded() / 10 } == 0.2)
        #expect(jump.seq == nil && jump.previousSeq == nil && jump.receiptGapSeconds == nil)
        #expect(jump.clockOffsetSeconds == 0 && jump.previousClockOffsetSeconds == 0)
        #expect(audit.measurements.backwardMoves == 1)
        #expect(audit.measurements.framesOffTruth == 0)
    }

    /// Chaos showed frames off the truth no report could take apart; each is now kept with the pin it was drawn from.
    @Test func aCarDrawnFarFromItsPathIsOffTheTruthAndTheReportSaysWhereItsPinWas() throws {
        let trace = Self.trace()
        var audit = ScreenAudit()
        audit.observe(Self.frame(at: 40, pin: (370, 39), marker: 370)) { _ in trace }
        // A pin received at 40.5 s, 80 m east of the road at 380 m north, and the car drawn half way to it.
        var frame = Self.frame(at: 40.6, pin: (380, 40.5), marker: nil)
        let east = Coordinate(
            lat: Self.north(380).lat, lng: Self.start.lng + 80 / (Self.metresPerDegree * cos(43.73 * .pi / 180)))
        frame.shown?.coordinate = east
        frame.shown?.seq = 7
        frame.marker = Coordinate(
            lat: Self.north(375).lat, lng: Self.start.lng + 40 / (Self.metresPerDegree * cos(43.73 * .pi / 180)))
        audit.observe(frame) { _ in trace }
        #expect(audit.measurements.framesOffTruth == 1)
        let off = try #require(audit.measurements.offTruthFrames.first)
        #expect(off.tripID == "trip-1" && off.driverID == "driver-1" && off.state == "onTrip" && off.seq == 7)
        #expect(off.at == Self.date(40.6).timeIntervalSince1970)
        #expect(off.metresFromPath.map { $0.rounded() } == 40)
        #expect(off.metresFromPin.map { $0.rounded() } == 40)
        #expect(off.pinMetresFromPath.map { $0.rounded() } == 80)
        #expect(off.pinAgeSeconds.map { ($0 * 10).rounded() / 10 } == 0.1)
    }

    @Test func enteringAStateAgainOrAnOlderVersionIsADuplicatedEvent() {
        let trace = Self.trace()
        var audit = ScreenAudit()
        let states: [(TripState, Int)] = [
            (.searching, 1), (.driverAssigned, 2), (.driverArrived, 3), (.driverAssigned, 3), (.onTrip, 2),
            (.completed, 5), (.completed, 5),
        ]
        for (index, (state, version)) in states.enumerated() {
            audit.observe(Self.frame(at: Double(index), state: state, version: version, pin: nil, marker: nil)) { _ in
                trace
            }
        }
        // driverAssigned re-entered, and version 2 after 3.
        #expect(audit.measurements.duplicatedEvents == 2)
        #expect(audit.measurements.trips["trip-1"] == ScreenAudit.ShownTrip(version: 5, state: .completed, fare: nil))
    }

    @Test func aLivePinOverSixSecondsOldOverclaims() {
        // The car left the pin's place at 10 s: at 16.15 s it is 6.15 s old, inside the 0.2 s tolerance.
        #expect(Self.claims(at: 16.15, says: .live, eta: 4).over == ScreenOverclaims())
        #expect(Self.claims(at: 16.25, says: .live, eta: 4).over == Self.over(\.live))
        // Updating at that age is the right word.
        #expect(Self.claims(at: 16.25, says: .updating).over == ScreenOverclaims())
        #expect(Self.claims(at: 16.25, says: .updating).under == ScreenUnderclaims())
    }

    @Test func anUpdatingPinOrAnEtaOverTwentySecondsOldOverclaims() {
        // A banner is up in all of these, so only the rule under test can count.
        #expect(Self.claims(at: 30.15, says: .updating, banner: true, eta: 4).over == ScreenOverclaims())
        #expect(Self.claims(at: 30.25, says: .updating, banner: true).over == Self.over(\.updating))
        #expect(Self.claims(at: 30.25, says: .locating, banner: true, eta: 4).over == Self.over(\.etaWhileLocating))
        #expect(Self.claims(at: 30.25, says: .locating, banner: true).over == ScreenOverclaims())
    }

    @Test func noDelayedBannerOverFifteenSecondsOverclaims() {
        #expect(Self.claims(at: 25.15, says: .updating).over == ScreenOverclaims())
        #expect(Self.claims(at: 25.25, says: .updating).over == Self.over(\.noDelayedBanner))
        #expect(Self.claims(at: 25.25, says: .updating, banner: true).over == ScreenOverclaims())
    }

    @Test func sayingLessThanTheTruthAllowsIsAnUnderclaim() {
        var locating = Self.under(\.locating)
        locating.delayedBanner = 1
        #expect(Self.claims(at: 15.75, says: .locating, banner: true).under == locating)
        #expect(Self.claims(at: 15.85, says: .locating, banner: true).under == Self.under(\.delayedBanner))
        #expect(Self.claims(at: 15.75, says: .updating).under == Self.under(\.updating))
        #expect(Self.claims(at: 15.85, says: .updating).under == ScreenUnderclaims())
        #expect(Self.claims(at: 24.75, says: .updating, banner: true).under == Self.under(\.delayedBanner))
        #expect(Self.claims(at: 24.85, says: .updating, banner: true).under == ScreenUnderclaims())
        // Saying live is never an underclaim, and a fresh live pin claims nothing it should not.
        #expect(Self.claims(at: 12, says: .live, eta: 4).under == ScreenUnderclaims())
        #expect(Self.claims(at: 12, says: .live, eta: 4).over == ScreenOverclaims())
    }

    /// Issue 14, fourth pass: a pin 8 m short of where the car then stood for 20 s was measured 0 s old while it
    /// stood and, the moment it drove off, as old as the car's pass by the pin before it stopped (22.8 s): now as
    /// old as the moment it left.
    @Test func aPinShortOfAStandingCarIsAsOldAsTheMomentTheCarDroveOff() {
        // North at 10 m/s to 600 m at 60 s, standing there until 80 s, then north again.
        let trace = TruthTrace()
        for second in 0...100 {
            let metres = second <= 60 ? Double(second) * 10 : second <= 80 ? 600 : 600 + Double(second - 80) * 10
            trace.record(Self.north(metres), at: Self.date(Double(second)))
        }
        var audit = ScreenAudit()
        // The last fix, 8 m short (the distance filter), reached the server at 61 s.
        audit.observe(Self.frame(at: 70, pin: (592, 61), marker: nil)) { _ in trace }
        audit.observe(Self.frame(at: 82, pin: (592, 61), marker: nil)) { _ in trace }
        audit.observe(Self.frame(at: 90, pin: (592, 61), marker: nil)) { _ in trace }
        audit.finishTrip()
        #expect(audit.measurements.freshness.count == 3)
        #expect(audit.measurements.freshness.percentile(0.3) == 0)
        #expect(audit.measurements.freshness.percentile(0.6) == 2)
        #expect(audit.measurements.freshness.percentile(1) == 10)
    }

    @Test func aKeepAliveStampedNowInATunnelIsALivePinThatOverclaims() {
        // The car drives north at 10 m/s through a tunnel from 20 s to 30 s; its last fix, at 190 m,
        // reached the server again at 28 s as a keep-alive stamped then: the app reads it 1 s old.
        let trace = TruthTrace()
        for second in 0...60 {
            trace.record(
                Self.north(Double(second) * 10), at: Self.date(Double(second)), blind: (20...30).contains(second))
        }
        var audit = ScreenAudit()
        audit.observe(Self.frame(at: 29, pin: (190, 28), marker: nil, eta: 3, says: .live)) { _ in trace }
        audit.finishTrip()
        // Ten seconds old in truth: the pin overclaims though the frame's age is reported near the tunnel.
        #expect(audit.measurements.overclaims == Self.over(\.live))
        #expect(audit.measurements.freshnessNearTunnels.percentile(1) == 10)
        // The report lists the frame with the ages it was judged by: the car left 190 m at 19 s, the server had
        // the keep-alive 1 s before the frame, and no fix of batch 1 was taken where the pin is.
        #expect(
            audit.measurements.overclaimedFrames == [
                OverclaimedFrame(
                    rule: "live", tripID: "trip-1", driverID: "driver-1", at: 1_000_029, state: "onTrip", seq: 1,
                    ageSeconds: 10, truthAgeSeconds: 10, fixAgeSeconds: nil, receivedAgeSeconds: 1,
                    clockOffsetSeconds: 0)
            ])
    }

    @Test func minuteChangesAreCountedPerTrip() {
        let trace = Self.trace()
        var audit = ScreenAudit()
        for (index, eta) in [5, 5, 4, nil, 4, 6, 4].enumerated() {
            audit.observe(Self.frame(at: Double(index), pin: nil, marker: nil, eta: eta)) { _ in trace }
        }
        audit.finishTrip()
        #expect(audit.measurements.minuteChangesPerTrip == [3])
    }

    @Test func anEtaChangeIsTheArrivalMovingNotTheCountdown() {
        let trace = Self.trace()
        var audit = ScreenAudit()
        let frames: [(seconds: Double, state: TripState, minutes: Int?)] = [
            // The countdown of an arrival about 235 s on: 4 min allows 180-240 s on at 0 s, 210-270 s at 30 s;
            // 3 min at 61 s and 2 min at 122 s allow it too.
            (0, .driverAssigned, 4), (30, .driverAssigned, 4), (61, .driverAssigned, 3), (122, .driverAssigned, 2),
            // 4 min 8 s after "2 min": an arrival at least 310 s on, which nothing shown allowed; then back.
            (130, .driverAssigned, 4), (140, .driverAssigned, 2),
            // A gap without minutes is no fresh start: the same 2 min after it is no ETA change.
            (150, .driverAssigned, nil), (160, .driverAssigned, 2),
            // The dropoff is a new arrival: its first minutes are no ETA change.
            (170, .onTrip, 9),
        ]
        for frame in frames {
            audit.observe(
                Self.frame(at: frame.seconds, state: frame.state, pin: nil, marker: nil, eta: frame.minutes)
            ) { _ in trace }
        }
        audit.finishTrip()
        #expect(audit.measurements.minuteChangesPerTrip == [5])
        #expect(audit.measurements.etaChangesPerTrip == [2])
        // The slack is a second: "1 min" shown 61 s after "2 min" was first shown still allows its arrival.
        #expect(ScreenAudit.arrivals(minutes: 2, at: 0) == 60...120)
        #expect(ScreenAudit.arrivals(minutes: 0, at: 10).upperBound == 10)
    }
}

@Suite("Seconds histogram")
struct SecondsHistogramTests {
    @Test func percentilesAreReadToTheTenth() {
        var histogram = SecondsHistogram(limit: 10)
        for tenth in 1...100 { histogram.add(Double(tenth) / 10) }
        #expect(histogram.percentile(0.5) == 5)
        #expect(histogram.percentile(0.99) == 9.9)
        #expect(histogram.maximum == 10)
        histogram.add(-1)
        histogram.add(40)
        #expect(histogram.count == 102)
        #expect(histogram.percentile(1) == 10)
        #expect(SecondsHistogram().percentile(0.5) == nil)
    }

    @Test func perSecondCountsEachWholeSecondAndEverythingPastTheLast() {
        var histogram = SecondsHistogram(limit: 60)
        for seconds in [0, 0.94, 0.95, 1.2, 4.99, 5, 19.9, 20, 45] { histogram.add(seconds) }
        // 0.95 rounds to the tenth 1.0, 4.99 to 5.0: the bins are tenths, as the percentiles are.
        #expect(histogram.perSecond(upTo: 20) == [2, 2, 0, 0, 0, 2] + Array(repeating: 0, count: 13) + [1, 2])
        #expect(histogram.perSecond(upTo: 2) == [2, 2, 5])
        #expect(SecondsHistogram().perSecond(upTo: 3) == [0, 0, 0, 0])
    }
}
