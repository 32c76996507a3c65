import Testing

@testable import HailNet

/// When malloc's free pages go back to the kernel: once, after a burst of connections has settled.
@Suite struct HeapTrimPolicyTests {
    @Test func aRampIsTrimmedOnceItHasSettledAndNotWhileItRuns() {
        var policy = HeapTrimPolicy(churnThreshold: 1_000, settledBelow: 100)
        // 19,000 drivers connecting, 4,000 per check, then nobody.
        let checks = [4_000, 8_000, 12_000, 16_000, 19_000, 19_000, 19_010, 19_020]
        #expect(checks.map { policy.check(churn: $0) } == [false, false, false, false, false, true, false, false])
    }

    @Test func aSmallTrickleNeverTrims() {
        var policy = HeapTrimPolicy(churnThreshold: 1_000, settledBelow: 100)
        // 50 connections per check: settled every time, but 1,000 only after 20 checks.
        let decisions = (1...25).map { policy.check(churn: $0 * 50) }
        #expect(decisions.firstIndex(of: true) == 19)
        #expect(decisions.filter { $0 }.count == 1)
    }

    @Test func aSecondBurstTrimsAgainAndAZeroThresholdNever() {
        var policy = HeapTrimPolicy(churnThreshold: 1_000, settledBelow: 100)
        #expect([5_000, 5_000].map { policy.check(churn: $0) } == [false, true])
        // The streams close in a storm: another burst of churn.
        #expect([9_000, 10_000, 10_000].map { policy.check(churn: $0) } == [false, false, true])
        var off = HeapTrimPolicy(churnThreshold: 0, settledBelow: 100)
        #expect([5_000, 5_000, 5_000].map { off.check(churn: $0) } == [false, false, false])
    }
}
