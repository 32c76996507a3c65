import Foundation
import HailCore
import HailProtocol
import Testing

@testable import HailDriver

/// When the stream is tried again, and a REST answer from the server bringing that try forward: the plan alone, its
/// instants exact (seeded draws, times chosen by hand).
@Suite("StreamReconnectPlan: a REST answer ends an outage's wait")
struct StreamReconnectPlanTests {
    let origin = Date(timeIntervalSince1970: 1_800_000_000)
    /// No jitter, so every wait is the backoff's ceiling: 1, 2, 4, 8, 16, 30 s.
    let plain = Backoff(jitter: .none)

    /// Five closes with 4013 in a row, each try made when due: the sixth wait is 30 s, from `at`.
    func fiveOutageCloses(_ plan: inout StreamReconnectPlan, at: Date, _ random: inout SplitMix64) -> Date {
        var now = at
        for _ in 0..<5 {
            plan.trying()
            now = plan.ended(.closed(.reconnectLater, upFor: 0), now: now, using: &random)
        }
        plan.trying()
        return plan.ended(.closed(.reconnectLater, upFor: 0), now: now, using: &random)
    }

    @Test func aRESTAnswerDuringATryAgainLaterWaitMovesTheTryToWithinASecond() {
        var plan = StreamReconnectPlan(backoff: plain)
        var random = SplitMix64(seed: 7)
        let start = origin
        let wake = fiveOutageCloses(&plan, at: start, &random)
        // 1 + 2 + 4 + 8 + 16 s of waits, then 30 s more.
        #expect(wake == start + 61)
        #expect(plan.attempt == 6)
        let answeredAt = start + 33
        // The same draw the plan makes: a copy of its generator, uniform over 0-1 s.
        var copy = random
        let jitter = Backoff.moveElsewhere.delay(afterAttempt: 1, using: &copy)
        let moved = plan.serverAnswered(now: answeredAt, using: &random)
        #expect(moved == answeredAt + jitter)
        #expect(jitter < 1)
        #expect(plan.wakeAt == answeredAt + jitter)
        // The attempt count stays: a try that fails again waits the next step, 30 s.
        #expect(plan.attempt == 6)
    }

    @Test func anOlderServersCloseWith1013IsAnOutageLike4013() {
        var plan = StreamReconnectPlan(backoff: plain)
        var random = SplitMix64(seed: 7)
        plan.trying()
        plan.ended(.closed(.tryAgainLater, upFor: 60), now: origin, using: &random)
        #expect(plan.outage)
        // Up a minute, yet not steady: the count goes on (a wait of 2 s after the second), as after a 4013.
        plan.trying()
        #expect(plan.ended(.closed(.tryAgainLater, upFor: 60), now: origin + 61, using: &random) == origin + 63)
        #expect(plan.serverAnswered(now: origin + 62, using: &random).map { $0 < origin + 63 } == true)
    }

    @Test func anOutageMinutesAfterTheLastStartsFromTheFirstStep() {
        var plan = StreamReconnectPlan(backoff: plain)
        var random = SplitMix64(seed: 7)
        // An outage that ran the count to 6 (a wait of 30 s), then a stream that stayed up 10 minutes.
        let healed = fiveOutageCloses(&plan, at: origin, &random)
        #expect(plan.attempt == 6)
        plan.trying()
        // Closed with 4013 again: a new outage, whose first wait is the backoff's first step, 1 s.
        #expect(plan.ended(.closed(.reconnectLater, upFor: 600), now: healed + 600, using: &random) == healed + 601)
        #expect(plan.attempt == 1)
        #expect(plan.outage)
        // A stream closed with 4013 after 2 minutes less a second is one more failure of the same outage: 2 s.
        plan.trying()
        #expect(plan.ended(.closed(.reconnectLater, upFor: 119), now: healed + 720, using: &random) == healed + 722)
        #expect(plan.attempt == 2)
    }

    @Test func aConnectThatFailedIsAnOutageToo() {
        var plan = StreamReconnectPlan(backoff: plain)
        var random = SplitMix64(seed: 7)
        plan.trying()
        plan.ended(.connectFailed, now: origin, using: &random)
        plan.trying()
        #expect(plan.ended(.connectFailed, now: origin + 1, using: &random) == origin + 3)
        #expect(plan.serverAnswered(now: origin + 1.5, using: &random).map { $0 < origin + 2.5 } == true)
    }

    @Test func answersWithinTenSecondsOfAHurryLeaveTheWaitAlone() {
        var plan = StreamReconnectPlan(backoff: plain)
        var random = SplitMix64(seed: 7)
        let wake = fiveOutageCloses(&plan, at: origin, &random)
        let first = plan.serverAnswered(now: origin + 32, using: &random)
        #expect(first != nil)
        // The hurried try fails again with 4013: the next wait is 30 s, and answers every second do not shorten it
        // until 10 s after the hurry.
        plan.trying()
        let next = plan.ended(.closed(.reconnectLater, upFor: 0), now: origin + 33, using: &random)
        #expect(next == origin + 63)
        #expect(wake == origin + 61)
        for second in 34..<42 {
            #expect(plan.serverAnswered(now: origin + Double(second), using: &random) == nil)
        }
        #expect(plan.wakeAt == origin + 63)
        let later = plan.serverAnswered(now: origin + 42, using: &random)
        #expect(later.map { $0 >= origin + 42 && $0 < origin + 43 } == true)
    }

    @Test func aDrainsMoveACrashedNodesDropAndATryUnderWayAreNotHurried() {
        var random = SplitMix64(seed: 7)
        // 4012: its own jitter, which spreads a draining node's streams.
        var moving = StreamReconnectPlan(backoff: plain)
        moving.ended(.closed(.moveNow, upFor: 300), now: origin, using: &random)
        #expect(moving.serverAnswered(now: origin, using: &random) == nil)
        // A steady stream dropped without a close frame: the crash storm's spread over 3 s stays.
        var dropped = StreamReconnectPlan(backoff: plain)
        dropped.ended(.closed(nil, upFor: 300), now: origin, using: &random)
        #expect(dropped.serverAnswered(now: origin, using: &random) == nil)
        // Trying now: nothing to bring forward.
        var trying = StreamReconnectPlan(backoff: plain)
        trying.ended(.closed(.reconnectLater, upFor: 0), now: origin, using: &random)
        trying.trying()
        #expect(trying.serverAnswered(now: origin + 0.5, using: &random) == nil)
        #expect(trying.wakeAt == nil)
    }

    @Test func aHurryIsNeverLaterThanTheWaitItShortens() {
        var plan = StreamReconnectPlan(backoff: plain)
        var random = SplitMix64(seed: 7)
        // The first wait is 1 s; an answer 0.2 s before it is due cannot move it sooner with a draw past it.
        plan.ended(.closed(.reconnectLater, upFor: 0), now: origin, using: &random)
        var copy = random
        let jitter = Backoff.moveElsewhere.delay(afterAttempt: 1, using: &copy)
        let moved = plan.serverAnswered(now: origin + 0.8, using: &random)
        #expect(moved == (origin + 0.8 + jitter < origin + 1 ? origin + 0.8 + jitter : nil))
        #expect(plan.wakeAt == min(origin + 1, origin + 0.8 + jitter))
    }
}
