import Foundation
import HailCore
import HailDriver
import HailProtocol
import HailTestSupport
import Testing

@Suite("Real traces through the driver's location pipeline")
struct TracePipelineTests {
    struct Expected {
        let activity: DriverActivity
        let thermal: ThermalState
        let lowPower: Bool
        let heldByHardware: Int
        let accepted: Int
        let poorAccuracy: Int
        let outOfOrder: Int
        /// Fixes dropped while one waited to be confirmed: a fix the speed did not explain that the next disagreed
        /// with, or a repeat of the waiting fix's time (the filter would have counted it out of order).
        let unconfirmed: Int
        let impossibleSpeed: Int
        let keepAlives: Int
        let batches: Int
        let points: Int
        let bytes: Int
        let sendsPerHour: Int
    }

    /// The Munich drive (1,194 fixes at 1 Hz over 1,195 s) with 36 bad fixes injected, at each policy.
    static let munich: [Expected] = [
        Expected(
            activity: .onTrip, thermal: .nominal, lowPower: false, heldByHardware: 415, accepted: 776,
            poorAccuracy: 12, outOfOrder: 8, unconfirmed: 1, impossibleSpeed: 18, keepAlives: 27, batches: 404,
            points: 803, bytes: 14057, sendsPerHour: 1217),
        Expected(
            activity: .onTrip, thermal: .nominal, lowPower: true, heldByHardware: 730, accepted: 471,
            poorAccuracy: 10, outOfOrder: 4, unconfirmed: 1, impossibleSpeed: 14, keepAlives: 31, batches: 384,
            points: 502, bytes: 10940, sendsPerHour: 1157),
        Expected(
            activity: .onTrip, thermal: .serious, lowPower: false, heldByHardware: 989, accepted: 227,
            poorAccuracy: 0, outOfOrder: 1, unconfirmed: 1, impossibleSpeed: 12, keepAlives: 37, batches: 259,
            points: 263, bytes: 6664, sendsPerHour: 780),
        Expected(
            activity: .waitingForTrip, thermal: .nominal, lowPower: false, heldByHardware: 989, accepted: 227,
            poorAccuracy: 0, outOfOrder: 1, unconfirmed: 1, impossibleSpeed: 12, keepAlives: 31, batches: 91,
            points: 257, bytes: 3971, sendsPerHour: 274),
    ]

    @Test(.enabled(if: TraceFixtures.hasMunich, "needs ../shared/data/traces/barefoot-munich"), arguments: munich)
    func munichDriveWithInjectedFaults(_ expected: Expected) throws {
        let munich = try #require(try TraceFixtures.munich(), "needs ../shared/data")
        #expect(munich.count == 1194)
        let faulty = TraceFixtures.withInjectedFaults(munich)
        #expect(faulty.count == 1230)
        let policy = LocationPolicy(activity: expected.activity, thermal: expected.thermal, lowPower: expected.lowPower)
        var replay = PipelineReplay(
            policy: policy, start: faulty[0].t, riderWatching: expected.activity != .waitingForTrip)
        replay.play(faulty, tail: 30)
        let counts = replay.pipeline.filter.counts
        let stats = replay.pipeline.stats
        #expect(replay.hardwareSuppressed == expected.heldByHardware)
        #expect(counts.accepted == expected.accepted)
        #expect(counts.poorAccuracy == expected.poorAccuracy)
        #expect(counts.outOfOrder == expected.outOfOrder)
        #expect(replay.pipeline.confirmation.dropped == expected.unconfirmed)
        #expect(counts.impossibleSpeed == expected.impossibleSpeed)
        #expect(counts.invalid == 0)
        #expect(stats.keepAlives == expected.keepAlives)
        #expect(stats.batches == expected.batches)
        #expect(stats.backlogBatches == 0)
        #expect(stats.points == expected.points)
        #expect(stats.points + replay.pipeline.batcher.pending.count == counts.accepted + stats.keepAlives)
        #expect(stats.bytes == expected.bytes)
        let duration = munich.last!.t.timeIntervalSince(munich[0].t)
        #expect(duration == 1195)
        #expect(Int((Double(stats.batches) * 3600 / duration).rounded()) == expected.sendsPerHour)
        // The server drops a driver silent for 60 s; the keep-alive holds every silence to its interval (12 s while
        // a rider watches, 14 s waiting) plus the policy's hold, and the timer's grace for a fix due with it.
        let keepAlive =
            replay.pipeline.riderWatching
            ? replay.pipeline.keepAliveInterval : replay.pipeline.waitingKeepAliveInterval
        #expect(
            Self.longestSilence(replay.sent)
                <= keepAlive + policy.interval.lowerBound + LocationBatcher.Configuration().tickGrace)
        #expect(replay.sent.map(\.seq) == Array(1...Int64(expected.batches)))
    }

    @Test(.enabled(if: TraceFixtures.hasLiverpool, "needs ../shared/data/traces/liverpool-bus"))
    func liverpoolBusWithItsLongestGap() throws {
        let trips = try #require(try TraceFixtures.liverpool(), "needs ../shared/data")
        #expect(trips.count == 16)
        #expect(trips.values.map(\.count).reduce(0, +) == 1533)
        let bus = try #require(trips["1093"])
        #expect(bus.count == 68)
        let gaps = zip(bus.dropFirst(), bus).map { $0.t.timeIntervalSince($1.t) }
        #expect(gaps.max() == 208)
        let policy = LocationPolicy(activity: .onTrip, thermal: .nominal, lowPower: false)
        var replay = PipelineReplay(policy: policy, start: bus[0].t, riderWatching: true)
        replay.play(bus, tail: 30)
        let counts = replay.pipeline.filter.counts
        let stats = replay.pipeline.stats
        #expect(replay.hardwareSuppressed == 11)
        #expect(counts.accepted == 57)
        #expect(counts.rejected == 0)
        #expect(stats.keepAlives == 114)
        #expect(stats.batches == 161)
        #expect(stats.points == 171)
        #expect(stats.bytes == 4324)
        #expect(Self.longestSilence(replay.sent) <= 14)
    }

    @Test(.enabled(if: TraceFixtures.hasMunich, "needs ../shared/data/traces/barefoot-munich"))
    func aFullOfflineBufferThinsTheStraightestPointsAndKeepsTheEnds() throws {
        let munich = try #require(try TraceFixtures.munich(), "needs ../shared/data")
        let policy = LocationPolicy(activity: .onTrip, thermal: .nominal, lowPower: false)
        var replay = PipelineReplay(policy: policy, start: munich[0].t, bufferCapacity: 200, riderWatching: true)
        replay.linkDown()
        replay.play(Array(munich.prefix(600)))
        let buffered = replay.pipeline.batcher.buffer
        #expect(buffered.count == 200)
        #expect(buffered.first == munich[0])
        #expect(replay.pipeline.batcher.thinnedCount == replay.pipeline.filter.counts.accepted - 200)
        replay.linkUp(now: munich[599].t.addingTimeInterval(5))
        #expect(replay.sent.count == 2)
        #expect(replay.sent.allSatisfy { $0.backlog })
        #expect(replay.sent.map(\.points.count) == [100, 100])
    }

    static func longestSilence(_ batches: [LocationBatch]) -> TimeInterval {
        let times = batches.compactMap { $0.points.last?.t }
        return zip(times.dropFirst(), times).map { $0.timeIntervalSince($1) }.max() ?? 0
    }
}

extension TracePipelineTests.Expected: CustomTestStringConvertible {
    var testDescription: String { "\(activity.rawValue), \(thermal.rawValue)\(lowPower ? ", Low Power" : "")" }
}
