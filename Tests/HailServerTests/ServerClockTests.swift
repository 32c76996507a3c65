import Foundation
import HailTesting
import HailTime
import Synchronization
import Testing

@testable import HailServer

/// The server's clock follows the wall clock (an NTP step reaches a running node) while its waits run on the
/// monotonic clock, and what counted on dates never going back survives a step back. The node's offset from the
/// shared clock is measured for `hail_clock_offset_seconds`.
@Suite("The server's clock: the wall clock's dates, the monotonic clock's waits")
struct ServerClockTests {
    static let t0 = Date(timeIntervalSince1970: 1_796_220_000)

    /// A wall clock a test sets by hand, as NTP would step it.
    final class WallClock: Sendable {
        private let date = Mutex(ServerClockTests.t0)
        var now: Date { date.withLock { $0 } }
        func step(by seconds: TimeInterval) { date.withLock { $0 += seconds } }
    }

    @Test func aStepOfTheWallClockReachesTheDatesAtOnceAndNeverAWaitForADuration() async throws {
        let wall = WallClock()
        let monotonic = ManualClock()
        let time = Timeline(clock: monotonic, now: { wall.now })
        #expect(time.now() == Self.t0)
        let woke = Mutex<Date?>(nil)
        let sleeper = Task {
            try await time.sleep(for: .seconds(5))
            woke.withLock { $0 = time.now() }
        }
        await monotonic.sleepers(atLeast: 1)
        wall.step(by: -120)
        #expect(time.now() == Self.t0 - 120)
        monotonic.advance(by: .seconds(4))
        wall.step(by: 4)
        #expect(woke.withLock { $0 } == nil)
        monotonic.advance(by: .seconds(1))
        wall.step(by: 1)
        try await sleeper.value
        // The five seconds asked for, on the monotonic clock, however far the dates moved.
        #expect(woke.withLock { $0 } == Self.t0 - 115)
    }

    @Test func theSystemTimelineReadsTheWallClockShiftedByItsTestOffset() {
        let before = Date()
        let ahead = Timeline.system(offset: 120).now()
        let after = Date()
        #expect(ahead >= before + 120)
        #expect(ahead <= after + 120)
    }

    @Test func aRateLimitKeepsRefillingAfterTheClockStepsBack() {
        var bucket = TokenBucket(rate: Rate(perSecond: 1, burst: 2), now: Self.t0)
        #expect(bucket.take(now: Self.t0) == .allow)
        #expect(bucket.take(now: Self.t0) == .allow)
        #expect(bucket.take(now: Self.t0) == .reject(retryAfterSeconds: 1))
        // NTP steps the clock back two minutes: a second later by the new clock there is a token again, not two
        // minutes and a second later.
        #expect(bucket.take(now: Self.t0 - 120) == .reject(retryAfterSeconds: 1))
        #expect(bucket.take(now: Self.t0 - 119) == .allow)
        #expect(bucket.take(now: Self.t0 - 119) == .reject(retryAfterSeconds: 1))
    }

    @Test func aDriversGeoEntryIsRewrittenAfterTheClockStepsBackSoTheSharedIndexNeverThinksThemSilent() {
        // Rewritten at most every 0.5 s; a write dated after now (the clock stepped back 120 s) is due at once,
        // not 120 s later, when Redis would have evicted the driver for 60 s of silence.
        #expect(Fleet.isDue(since: Self.t0, every: 0.5, now: Self.t0 + 0.4) == false)
        #expect(Fleet.isDue(since: Self.t0, every: 0.5, now: Self.t0 + 0.5))
        #expect(Fleet.isDue(since: Self.t0, every: 0.5, now: Self.t0 - 120))
    }

    @Test func anOffsetIsTakenHalfWayThroughItsExchangeAndTheQuickestExchangeCounts() throws {
        // Sent at 10.000 by the node, answered 9.000 by the reference, back 0.200 later: the reference's 9.000
        // was the node's 10.100, so the node is 1.1 s ahead.
        let slow = ClockOffsetSample(sentAt: Self.t0 + 10, roundTrip: 0.2, reference: Self.t0 + 9)
        #expect(abs(slow.offset - 1.1) < 1e-6)
        let quick = ClockOffsetSample(sentAt: Self.t0 + 20, roundTrip: 0.002, reference: Self.t0 + 19)
        #expect(abs(quick.offset - 1.001) < 1e-6)
        #expect(ClockOffsetSample.best([slow, quick]) == quick)
        #expect(ClockOffsetSample.best([]) == nil)
        let behind = ClockOffsetSample(sentAt: Self.t0, roundTrip: 0, reference: Self.t0 + 120)
        #expect(behind.offset == -120)
    }

    /// A reference whose clock is `ahead` seconds after the node's, or which does not answer.
    struct FixedReference: ClockReference {
        let ahead: TimeInterval?
        let time: Timeline
        var name: String { "redis" }
        struct Down: Error {}
        func referenceTime() async throws -> Date {
            guard let ahead else { throw Down() }
            return time.now() + ahead
        }
    }

    @Test func theMonitorSetsTheGaugeToTheNodesOffsetAndLeavesItWhenTheReferenceIsDown() async throws {
        let metrics = ServerMetrics()
        let clock = ManualClock()
        let time = Timeline(clock: clock, origin: Self.t0)
        let behind = ClockOffsetMonitor(
            reference: FixedReference(ahead: 120, time: time), time: time, metrics: metrics, roundTrips: clock)
        let sample = try #require(await behind.sample())
        // The manual clock does not move during an exchange: no round trip, the offset exactly -120 s.
        #expect(sample.offset == -120)
        #expect(metrics.registry.value("hail_clock_offset_seconds", labels: ["reference": "redis"]) == -120)
        #expect(metrics.registry.render().contains(#"hail_clock_offset_seconds{reference="redis"} -120"#))
        let down = ClockOffsetMonitor(
            reference: FixedReference(ahead: nil, time: time), time: time, metrics: metrics, roundTrips: clock)
        #expect(await down.sample() == nil)
        #expect(metrics.registry.value("hail_clock_offset_seconds", labels: ["reference": "redis"]) == -120)
    }
}
