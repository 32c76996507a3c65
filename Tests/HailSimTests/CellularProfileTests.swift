import Foundation
import HailCore
import HailTesting
import HailTime
import Synchronization
import Testing

@testable import HailSim

@Suite("The measured-cellular profile: Uber's 2019 figures, drawn from seeded generators")
struct CellularProfileTests {
    /// The sample's quantiles at 50, 75, 95 and 99 %.
    static func quantiles(of curve: QuantileCurve, draws: Int, seed: UInt64) -> [Double] {
        var random = SplitMix64(seed: seed)
        let values = (0..<draws).map { _ in curve.draw(using: &random) }.sorted()
        return [0.5, 0.75, 0.95, 0.99].map { values[Int($0 * Double(draws))] }
    }

    @Test func theCurvesPassThroughThePublishedQuantilesAndExtendTheirEnds() {
        let roundTrip = TCPLinkModel.uber2019.roundTrip
        let retransmission = TCPLinkModel.uber2019.retransmission
        for (probability, value) in [(0.5, 0.35), (0.75, 0.425), (0.95, 0.725), (0.99, 2.3)] {
            #expect(abs(roundTrip.value(at: probability) - value) < 1e-12)
        }
        for (probability, value) in [(0.5, 1.0), (0.75, 2.8), (0.95, 15.0), (0.99, 28.0)] {
            #expect(abs(retransmission.value(at: probability) - value) < 1e-12)
        }
        // The first and last segments' slopes carried on: 237 ms at best, 3.07 s at worst; 0.13 s to 32.7 s.
        #expect(abs(roundTrip.value(at: 0) - 0.237_370) < 1e-6)
        #expect(abs(roundTrip.value(at: 1) - 3.069_554) < 1e-6)
        #expect(abs(retransmission.value(at: 0) - 0.127_551) < 1e-6)
        #expect(abs(retransmission.value(at: 1) - 32.728_396) < 1e-6)
    }

    @Test func a100000DrawsComeOutAtThePublishedQuantilesWithin3Percent() {
        let roundTrip = Self.quantiles(of: TCPLinkModel.uber2019.roundTrip, draws: 100_000, seed: 42)
        for (drawn, published) in zip(roundTrip, [0.35, 0.425, 0.725, 2.3]) {
            #expect(abs(drawn / published - 1) < 0.03, "round trip \(drawn) s against \(published) s")
        }
        let retransmission = Self.quantiles(of: TCPLinkModel.uber2019.retransmission, draws: 100_000, seed: 42)
        for (drawn, published) in zip(retransmission, [1.0, 2.8, 15, 28]) {
            #expect(abs(drawn / published - 1) < 0.03, "retransmission \(drawn) s against \(published) s")
        }
    }

    @Test func aSeedGivesTheSameDrawsEveryTime() {
        var random = SplitMix64(seed: 1)
        let roundTrips = (0..<3).map { _ in TCPLinkModel.uber2019.roundTrip.draw(using: &random) }
        for (drawn, expected) in zip(roundTrips, [0.368_568_46, 0.423_609_983, 1.329_236_268]) {
            #expect(abs(drawn - expected) < 1e-9)
        }
        random = SplitMix64(seed: 1)
        let waits = (0..<3).map { _ in TCPLinkModel.uber2019.retransmission.draw(using: &random) }
        for (drawn, expected) in zip(waits, [1.315_388_897, 2.751_776_433, 20.817_087_835]) {
            #expect(abs(drawn - expected) < 1e-9)
        }
    }

    @Test func theProfileIsNamedAndCarriesTheMeasuredLink() {
        let profile = NetworkProfile.cellular
        #expect(NetworkProfile.named("cellular") == profile)
        #expect(profile.tcp == .uber2019)
        #expect(profile.timeout == 10)
        #expect(TCPLinkModel.uber2019.lossyConnectionShare == 0.45)
        #expect(TCPLinkModel.uber2019.lossOnLossyConnection == 0.035)
        #expect(TCPLinkModel.congested.lossOnLossyConnection == 0.07)
    }

    /// Uber's rates with a fixed round trip of 0.1 s, so a frame that waited for a retransmission (at least
    /// 0.13 s more) stands out from one that did not (0.05 s).
    static var measuredLossWithAFixedRoundTrip: NetworkProfile {
        var profile = NetworkProfile.cellular
        profile.tcp?.roundTrip = QuantileCurve(quantiles: [.init(0.5, 0.1), .init(0.99, 0.1)])
        return profile
    }

    @Test func fortyFivePercentOfConnectionsLoseFramesAndTheyLose3Point5Percent() async {
        let timeline = Timeline(clock: ManualClock(), origin: Date(timeIntervalSince1970: 0))
        let conditions = NetworkConditions(
            profile: Self.measuredLossWithAFixedRoundTrip, timeline: timeline, random: SplitMix64(seed: 7))
        var lossyConnections = 0
        var framesOnLossy = 0
        var lostOnLossy = 0
        let connections = 4_000
        for _ in 0..<connections {
            _ = await conditions.handshake()
            var lost = 0
            for _ in 0..<200 where await conditions.frameDelay() > 0.05 + 1e-9 { lost += 1 }
            guard lost > 0 else { continue }
            lossyConnections += 1
            framesOnLossy += 200
            lostOnLossy += lost
        }
        // 45 % of 4,000 connections, each losing one frame in 28.6 on average: all but about one in a thousand
        // of the lossy ones lose at least one of 200.
        let lossyShare = Double(lossyConnections) / Double(connections)
        let lossShare = Double(lostOnLossy) / Double(framesOnLossy)
        #expect(abs(lossyShare - 0.45) < 0.02, "\(lossyShare)")
        #expect(abs(lossShare - 0.035) < 0.002, "\(lossShare)")
    }

    @Test func aFrameWaitingForARetransmissionHoldsBackTheFramesBehindIt() async throws {
        // Every connection lossy, half the frames lost, round trips 0.5 s, retransmissions 10 s. With seed 1
        // the first of three frames is lost and the two behind it are not: all three arrive 10.25 s after they
        // were written, in order, where without the lost one they would arrive after 0.25 s.
        var profile = NetworkProfile.cellular
        profile.tcp = TCPLinkModel(
            roundTrip: QuantileCurve(quantiles: [.init(0.5, 0.5), .init(0.99, 0.5)]), lossyConnectionShare: 1,
            lossOnLossyConnection: 0.5, retransmission: QuantileCurve(quantiles: [.init(0.5, 10), .init(0.99, 10)]),
            handshakeLossOnLossyConnection: 0)
        let clock = ManualClock()
        let timeline = Timeline(clock: clock, origin: Date(timeIntervalSince1970: 0))
        let conditions = NetworkConditions(
            profile: profile, timeline: timeline, random: SplitMix64(seed: 1), deadZones: [], stalls: [])
        #expect(await conditions.handshake() == 0.5)
        let faults = FaultInjector(conditions: conditions)
        let (inner, feed) = AsyncThrowingStream<Int, any Error>.makeStream()
        let stream = faults.stream(inner, reorderable: { _ in false }, close: {})
        let reader = Task {
            var arrivals: [(Int, Duration)] = []
            for try await frame in stream { arrivals.append((frame, clock.now.offset)) }
            return arrivals
        }
        for frame in 1...3 { feed.yield(frame) }
        feed.finish()
        let arrivals = try await FaultInjectorTests.drive(clock, step: .milliseconds(250), steps: 41, reader).get()
        #expect(arrivals.map(\.0) == [1, 2, 3])
        #expect(arrivals.map(\.1) == Array(repeating: .milliseconds(10_250), count: 3))
    }

    @Test func aRequestWhoseLostPacketComesBackTooLateTimesOutAfterTheAppsTenSeconds() async {
        // Every packet lost and retransmitted after 12 s: past the apps' 10 s, so the server never sees it.
        var profile = NetworkProfile.cellular
        profile.tcp = TCPLinkModel(
            roundTrip: QuantileCurve(quantiles: [.init(0.5, 0.5), .init(0.99, 0.5)]), lossyConnectionShare: 1,
            lossOnLossyConnection: 1, retransmission: QuantileCurve(quantiles: [.init(0.5, 12), .init(0.99, 12)]),
            handshakeLossOnLossyConnection: 1)
        let (clock, faults) = FaultInjectorTests.faults(profile)
        let reached = Mutex(0)
        let call = Task { try await faults.request { reached.withLock { $0 += 1 } } }
        let result = await FaultInjectorTests.drive(clock, step: .seconds(10), steps: 1, call)
        #expect(throws: FaultInjector.NoAnswer.self) { try result.get() }
        #expect(reached.withLock { $0 } == 0)
        #expect(clock.now.offset == .seconds(10))
    }
}
