import Foundation
import HailCore
import Testing

@Suite("When the phone took a fix, on the server's clock")
struct FixTimeEstimatorTests {
    /// Server time.
    static func server(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_800_000_000 + seconds) }
    /// Phone time: this phone's clock is 120 s behind the server's.
    static func phone(_ seconds: Double) -> Date { server(seconds - 120) }

    @Test func withNothingSeenAFixIsAsOldAsItsReceipt() {
        let estimator = FixTimeEstimator()
        #expect(estimator.smallestLag == nil)
        #expect(estimator.fixedAt(deviceTime: Self.phone(3), receivedAt: Self.server(10)) == Self.server(10))
    }

    @Test func oneBatchGivesItsNewestFixTheReceiptAndTheOlderOnesTheirGapBefore() {
        var estimator = FixTimeEstimator()
        // Fixes taken at 7, 8 and 9 s on the server's clock, received at 10.5 s.
        estimator.observe(deviceTime: Self.phone(9), receivedAt: Self.server(10.5))
        #expect(estimator.smallestLag == 121.5)
        #expect(estimator.fixedAt(deviceTime: Self.phone(9), receivedAt: Self.server(10.5)) == Self.server(10.5))
        #expect(estimator.fixedAt(deviceTime: Self.phone(7), receivedAt: Self.server(10.5)) == Self.server(8.5))
    }

    @Test func theShortestWaitSeenDatesEveryFixWhateverThePhonesClock() {
        var estimator = FixTimeEstimator()
        // Newest fixes waiting 1.25 s, 0.25 s and 0.75 s (batcher and uplink) on a phone 120 s behind.
        estimator.observe(deviceTime: Self.phone(9), receivedAt: Self.server(10.25))
        estimator.observe(deviceTime: Self.phone(12), receivedAt: Self.server(12.25))
        estimator.observe(deviceTime: Self.phone(15), receivedAt: Self.server(15.75))
        #expect(estimator.smallestLag == 120.25)
        // A fix taken at 15 s and received at 15.75 s is dated 15.25 s: 0.5 s older than its receipt.
        #expect(estimator.fixedAt(deviceTime: Self.phone(15), receivedAt: Self.server(15.75)) == Self.server(15.25))
    }

    /// Issue 14, eighth pass: on a driver's third batch over 3G the quickest arrival seen was 0.45 s, so a fix was
    /// dated 0.45 s late and the rider's pin said live for it at 6.24 s old.
    @Test func thePhonesQuickestRoundTripKeepsAFixFromBeingDatedLate() {
        var late = FixTimeEstimator()
        var bounded = FixTimeEstimator()
        // Batches sent at 3, 6 and 9 s (phone 120 s behind), arriving 0.6, 0.45 and 0.5 s later; the acks took
        // 0.15 s back, so the phone's quickest round trip is 0.6 s.
        for (sent, arrival) in [(3.0, 0.6), (6, 0.45), (9, 0.5)] {
            late.observe(deviceTime: Self.phone(sent), receivedAt: Self.server(sent + arrival))
            bounded.observe(deviceTime: Self.phone(sent), receivedAt: Self.server(sent + arrival), roundTrip: 0.6)
        }
        // A fix taken at 8.5 s and sent in the batch of 9 s.
        func milliseconds(_ date: Date) -> Int { Int((date.timeIntervalSince(Self.server(0)) * 1000).rounded()) }
        #expect(milliseconds(late.fixedAt(deviceTime: Self.phone(8.5), receivedAt: Self.server(9.5))) == 8_950)
        // Less the round trip: 0.15 s early (the way back), never late.
        #expect(milliseconds(bounded.fixedAt(deviceTime: Self.phone(8.5), receivedAt: Self.server(9.5))) == 8_350)
        // A report that is not a round trip is ignored.
        var ignored = FixTimeEstimator()
        ignored.observe(deviceTime: Self.phone(6), receivedAt: Self.server(6.45), roundTrip: -1)
        #expect(ignored.fixedAt(deviceTime: Self.phone(5.5), receivedAt: Self.server(6.45)) == Self.server(5.95))
    }

    @Test func aLagOlderThanTheWindowNoLongerCounts() {
        var estimator = FixTimeEstimator(window: 120)
        estimator.observe(deviceTime: Self.phone(0), receivedAt: Self.server(0.25))
        estimator.observe(deviceTime: Self.phone(60), receivedAt: Self.server(61))
        #expect(estimator.smallestLag == 120.25)
        estimator.observe(deviceTime: Self.phone(119.75), receivedAt: Self.server(120.25))
        // 0.25 s was seen at 0.25 s, exactly the window before: it still counts.
        #expect(estimator.smallestLag == 120.25)
        estimator.observe(deviceTime: Self.phone(121), receivedAt: Self.server(121.75))
        // Now it is older than the window: the smallest since is 0.5 s (seen at 120.25 s).
        #expect(estimator.smallestLag == 120.5)
    }

    @Test func aPhoneClockSetForwardCountsAtOnceAndOneSetBackOnlyOnceTheOldLagsLeave() {
        var estimator = FixTimeEstimator(window: 60)
        estimator.observe(deviceTime: Self.phone(10), receivedAt: Self.server(10.25))
        // The phone's clock jumps 30 s forward: its fixes look 30 s younger, and the smaller lag wins at once.
        estimator.observe(deviceTime: Self.phone(43), receivedAt: Self.server(13.5))
        #expect(estimator.smallestLag == 90.5)
        #expect(estimator.fixedAt(deviceTime: Self.phone(43), receivedAt: Self.server(13.5)) == Self.server(13.5))
        // Set back 30 s again: lags of 120.25 s stay above 90.5 s, so fixes look 30 s older than they are (the
        // pin says updating too early, never live when stale) until 90.5 s leaves the window.
        estimator.observe(deviceTime: Self.phone(20), receivedAt: Self.server(20.25))
        #expect(estimator.fixedAt(deviceTime: Self.phone(20), receivedAt: Self.server(20.25)) == Self.server(-9.5))
        estimator.observe(deviceTime: Self.phone(74), receivedAt: Self.server(74.25))
        #expect(estimator.smallestLag == 120.25)
        #expect(estimator.fixedAt(deviceTime: Self.phone(74), receivedAt: Self.server(74.25)) == Self.server(74.25))
    }

    @Test func aFixIsNeverDatedAfterItsReceipt() {
        var estimator = FixTimeEstimator()
        estimator.observe(deviceTime: Self.phone(10), receivedAt: Self.server(11))
        // A fix the phone dates after the newest it sent, received at once: t + 121 s would be 0.5 s late.
        #expect(estimator.fixedAt(deviceTime: Self.phone(10.5), receivedAt: Self.server(11)) == Self.server(11))
    }

    @Test func keepsAtMostItsCapacityOfCandidates() {
        var estimator = FixTimeEstimator(window: 1000)
        // Lags growing by 1/128 s a batch: every one is a candidate for when the ones before leave the window.
        for index in 0..<100 {
            let at = Double(index)
            estimator.observe(deviceTime: Self.phone(at), receivedAt: Self.server(at + 0.25 + Double(index) / 128))
        }
        // The 36 oldest were dropped for the 64 newest: the smallest kept is the 37th.
        #expect(estimator.smallestLag == 120 + 0.25 + 36.0 / 128)
    }
}
