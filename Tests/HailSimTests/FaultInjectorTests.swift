import Foundation
import HailCore
import HailDriver
import HailTesting
import HailTime
import Synchronization
import Testing

@testable import HailSim

@Suite("Network faults at the transport seam, on a manual clock")
struct FaultInjectorTests {
    static func faults(
        _ profile: NetworkProfile, deadZones: [ClosedRange<Double>] = [], stalls: [ClosedRange<Double>] = []
    ) -> (ManualClock, FaultInjector) {
        let clock = ManualClock()
        let timeline = Timeline(clock: clock, origin: Date(timeIntervalSince1970: 0))
        let conditions = NetworkConditions(
            profile: profile, timeline: timeline, random: SplitMix64(seed: 1), deadZones: deadZones, stalls: stalls)
        return (clock, FaultInjector(conditions: conditions))
    }

    /// Advances the clock a step at a time, each after someone is asleep on it, until `task` ends.
    static func drive<T: Sendable>(_ clock: ManualClock, step: Duration, steps: Int, _ task: Task<T, any Error>) async
        -> Result<T, any Error>
    {
        for _ in 0..<steps {
            await clock.sleepers(atLeast: 1)
            clock.advance(by: step)
        }
        return await task.result
    }

    @Test func aLostRequestNeverReachesTheServerAndTimesOut() async {
        var profile = NetworkProfile(name: "lossy")
        profile.requestLoss = 1
        profile.timeout = 5
        let (clock, faults) = Self.faults(profile)
        let reached = Mutex(0)
        let call = Task { try await faults.request { reached.withLock { $0 += 1 } } }
        let result = await Self.drive(clock, step: .seconds(5), steps: 1, call)
        #expect(throws: FaultInjector.NoAnswer.self) { try result.get() }
        #expect(reached.withLock { $0 } == 0)
        #expect(clock.now.offset == .seconds(5))
    }

    @Test func aLostAnswerReachesTheServerButTheAppSeesATimeout() async {
        var profile = NetworkProfile(name: "lossy")
        profile.answerLoss = 1
        profile.latency = 0.25
        profile.timeout = 5
        let (clock, faults) = Self.faults(profile)
        let reached = Mutex(0)
        let call = Task { try await faults.request { reached.withLock { $0 += 1 } } }
        // 0.25 s out, then the answer is lost: the timeout runs from the send.
        let result = await Self.drive(clock, step: .milliseconds(250), steps: 20, call)
        #expect(throws: FaultInjector.NoAnswer.self) { try result.get() }
        #expect(reached.withLock { $0 } == 1)
        #expect(clock.now.offset == .seconds(5))
    }

    @Test func aRequestTakesTheRoundTrip() async throws {
        var profile = NetworkProfile(name: "slow")
        profile.latency = 0.25
        let (clock, faults) = Self.faults(profile)
        let call = Task { try await faults.request { 42 } }
        let result = await Self.drive(clock, step: .milliseconds(250), steps: 2, call)
        #expect(try result.get() == 42)
        #expect(clock.now.offset == .milliseconds(500))
    }

    @Test func aDeadZoneBreaksTheStreamAndRefusesCallsUntilItEnds() async throws {
        var profile = NetworkProfile(name: "tunnel")
        profile.latency = 1
        profile.timeout = 5
        let (clock, faults) = Self.faults(profile, deadZones: [10...20])
        let (inner, feed) = AsyncThrowingStream<Int, any Error>.makeStream()
        let stream = faults.stream(inner, reorderable: { _ in false }, close: {})
        let received = Mutex<[Int]>([])
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        let reader = Task {
            for try await frame in stream {
                received.withLock { $0.append(frame) }
                arrived.yield()
            }
        }
        feed.yield(1)
        feed.yield(2)
        // Delivered one second later, in order; then the dead zone at 10 s breaks the stream. The dead zone's
        // own timer is a sleeper from the start, so the first second waits for the delivery's sleeper beside it,
        // and the clock moves on only once both frames are in.
        await clock.sleepers(atLeast: 2)
        clock.advance(by: .seconds(1))
        try await within(60, "both frames delivered") {
            for await _ in arrivals where received.withLock({ $0.count }) >= 2 { return }
        }
        let ended = await Self.drive(clock, step: .seconds(1), steps: 9, reader)
        #expect(received.withLock { $0 } == [1, 2])
        #expect(throws: FaultInjector.NoAnswer.self) { try ended.get() }
        let during = Task { try await faults.open { "connected" } }
        let refused = await Self.drive(clock, step: .seconds(5), steps: 1, during)
        #expect(throws: FaultInjector.NoAnswer.self) { try refused.get() }
        // At 15 s still dead; after 20 s a call gets through.
        clock.advance(by: .seconds(6))
        let after = Task { try await faults.request { "answered" } }
        #expect(try await Self.drive(clock, step: .seconds(1), steps: 2, after).get() == "answered")
    }

    /// Chaos runs found driver apps holding a stream that lived through a dead zone: `open` looks at the
    /// network only when the handshake starts, and the stream only broke at dead zones after it opened.
    @Test func aDeadZoneThatBeginsDuringTheHandshakeBreaksTheNewStreamAtOnce() async throws {
        var profile = NetworkProfile(name: "tunnel ahead")
        profile.latency = 0.5
        let (clock, faults) = Self.faults(profile, deadZones: [0.5...10])
        // The handshake starts before the dead zone and takes the 1 s round trip.
        let opening = Task { try await faults.open { "socket" } }
        #expect(try await Self.drive(clock, step: .seconds(1), steps: 1, opening).get() == "socket")
        let closes = Mutex(0)
        let (inner, feed) = AsyncThrowingStream<Int, any Error>.makeStream()
        defer { feed.finish() }
        let stream = faults.stream(inner, reorderable: { _ in false }, close: { closes.withLock { $0 += 1 } })
        let outcome = Mutex<String?>(nil)
        let reader = Task {
            do {
                for try await _ in stream {}
                outcome.withLock { $0 = "ended" }
            } catch {
                outcome.withLock { $0 = "\(error)" }
            }
        }
        try await within(60, "the stream to break") { await reader.value }
        #expect(outcome.withLock { $0 } == "the connection broke")
        #expect(closes.withLock { $0 } == 1)
        #expect(clock.now.offset == .seconds(1))
    }

    @Test func aStalledSocketHoldsFramesAndThenDeliversThemAllInOrder() async throws {
        var profile = NetworkProfile(name: "stalls")
        profile.latency = 0.5
        let (clock, faults) = Self.faults(profile, stalls: [0...4])
        let (inner, feed) = AsyncThrowingStream<Int, any Error>.makeStream()
        let stream = faults.stream(inner, reorderable: { _ in false }, close: {})
        let reader = Task {
            var frames: [Int] = []
            for try await frame in stream { frames.append(frame) }
            return frames
        }
        for frame in 1...3 { feed.yield(frame) }
        feed.finish()
        let frames = await Self.drive(clock, step: .seconds(4), steps: 1, reader)
        #expect(try frames.get() == [1, 2, 3])
        #expect(clock.now.offset == .seconds(4))
    }

    @Test func theSameSeedLaysOutTheSameDeadZones() {
        let timeline = Timeline(clock: ManualClock(), origin: Date(timeIntervalSince1970: 0))
        let first = NetworkConditions(profile: .deadZones, timeline: timeline, random: SplitMix64(seed: 9))
        let again = NetworkConditions(profile: .deadZones, timeline: timeline, random: SplitMix64(seed: 9))
        let other = NetworkConditions(profile: .deadZones, timeline: timeline, random: SplitMix64(seed: 10))
        #expect(first.deadZones == again.deadZones)
        #expect(first.deadZones != other.deadZones)
        // Twelve an hour over a day: 288 expected; a Poisson count within ±25 % of it.
        #expect((216...360).contains(first.deadZones.count))
        #expect(first.deadZones.allSatisfy { abs($0.upperBound - $0.lowerBound - 20) < 1e-6 })
        #expect(first.stalls.isEmpty)
    }
}
