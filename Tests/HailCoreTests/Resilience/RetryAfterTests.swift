import Foundation
import HailCore
import HailTesting
import Testing

/// A server's `Retry-After` is honoured by every retrying caller: at least the server's wait, bounded, spread.
struct RetryAfterTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let key = UUID(uuidString: "00000000-0000-0000-0000-00000000000A")!

    @Test func backoffWaitsAtLeastTheServersRetryAfterSpreadByUpToAQuarter() {
        // SplitMix64(42): the first draw makes the backoff's own 0.87 s, the second the spread (2/4 * 0.16).
        var generator = SplitMix64(seed: 42)
        #expect(Backoff.standard.delay(afterAttempt: 1, retryAfter: 2, using: &generator) == 2.07995519643846)
    }

    @Test func backoffKeepsItsOwnLongerWaitAndCapsTheServersAtItsCap() {
        var generator = SplitMix64(seed: 42)
        #expect(Backoff.standard.delay(afterAttempt: 1, retryAfter: 2, using: &generator) == 2.07995519643846)
        // Attempt 5 (ceiling 16 s) draws 10.2 s, longer than the server's 2 s.
        #expect(Backoff.standard.delay(afterAttempt: 5, retryAfter: 2, using: &generator) == 10.22880904204111)
        // An hour asked for is the 30 s cap.
        #expect(Backoff.standard.delay(afterAttempt: 1, retryAfter: 3600, using: &generator) == 30)
    }

    @Test func backoffWithoutRetryAfterIsTheBackoff() {
        var a = SplitMix64(seed: 42)
        var b = SplitMix64(seed: 42)
        #expect(
            Backoff.standard.delay(afterAttempt: 3, retryAfter: nil, using: &a)
                == Backoff.standard.delay(afterAttempt: 3, using: &b))
    }

    @Test func anOutboxEntryToldToRetryAfterWaitsThatLong() {
        var outbox = Outbox(backoff: Backoff(jitter: .none))
        outbox.enqueue(DriverIntent(.ended, tripID: "t1"), key: key, now: t0)
        var generator = SplitMix64(seed: 1)
        #expect(outbox.next(now: t0) != .idle)
        // The backoff alone would retry after 1 s; the server said 5.
        outbox.failed(key: key, now: t0, transient: false, retryAfter: 5, using: &generator)
        #expect(outbox.next(now: t0.addingTimeInterval(4.9)) == .wait(until: t0.addingTimeInterval(5)))
        #expect(outbox.next(now: t0.addingTimeInterval(5)) != .wait(until: t0.addingTimeInterval(5)))
        // A second failure without one goes back to the backoff (2 s).
        outbox.failed(key: key, now: t0.addingTimeInterval(5), transient: false, using: &generator)
        #expect(outbox.next(now: t0.addingTimeInterval(6)) == .wait(until: t0.addingTimeInterval(7)))
    }

    @Test func anOutboxEntryIsNeverParkedPastTheCapByAServer() {
        var outbox = Outbox(backoff: Backoff(jitter: .none))
        outbox.enqueue(DriverIntent(.ended, tripID: "t1"), key: key, now: t0)
        var generator = SplitMix64(seed: 1)
        _ = outbox.next(now: t0)
        outbox.failed(key: key, now: t0, transient: false, retryAfter: 86_400, using: &generator)
        #expect(outbox.next(now: t0) == .wait(until: t0.addingTimeInterval(30)))
    }

    @Test func theRidersRequestRetriesWaitForTheServerUpToFiveSeconds() {
        let schedule = RetrySchedule.riderRequest
        #expect(schedule.delay(afterAttempt: 1, retryAfter: nil) == 1)
        #expect(schedule.delay(afterAttempt: 1, retryAfter: 2) == 2)
        #expect(schedule.delay(afterAttempt: 2, retryAfter: 1) == 2)
        #expect(schedule.delay(afterAttempt: 2, retryAfter: 120) == 5)
        #expect(schedule.delay(afterAttempt: 3, retryAfter: 2) == nil)
    }
}
