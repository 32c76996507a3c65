import Foundation
import HailCore
import HailProtocol
import HailTestSupport
import HailTime
import Synchronization
import Testing

@testable import HailDriver

/// The driver stream while the server's storage is paused: the server takes every socket and closes it at once
/// with 4013, and the loop must back off rather than start over at each connect.
@Suite("DriverStreamLoop: a server that closes every stream with 4013")
@MainActor
struct StreamOutageBackoffTests {
    /// A channel whose every connection says hello, stays up `upFor` seconds of the timeline, and ends with
    /// `closeCode` (nil: a drop); with 0 and 4013 it is a node whose Redis is paused (its bus subscription ends
    /// at once).
    final class ClosingChannel: DriverChannel {
        private let count = Mutex(0)
        private let times = Mutex<[TimeInterval]>([])
        private let upFor: TimeInterval
        private let closeCode: UInt16?
        private let timeline: Timeline

        init(upFor: TimeInterval, closeCode: UInt16?, timeline: Timeline) {
            self.upFor = upFor
            self.closeCode = closeCode
            self.timeline = timeline
        }

        /// How many connections were opened.
        var connects: Int { count.withLock { $0 } }
        /// When each connection was opened, seconds after the timeline's origin.
        var connectTimes: [TimeInterval] { times.withLock { $0 } }

        func connect() async throws -> AsyncStream<DriverServerFrame> {
            count.withLock { $0 += 1 }
            let now = timeline.now().timeIntervalSince1970 - 1_800_000_000
            times.withLock { $0.append(now) }
            let (frames, continuation) = AsyncStream.makeStream(of: DriverServerFrame.self)
            continuation.yield(.hello(serverTime: timeline.now()))
            guard upFor > 0 else {
                continuation.finish()
                return frames
            }
            let timeline = self.timeline
            let until = timeline.now().addingTimeInterval(upFor)
            Task {
                try? await timeline.sleep(until: until)
                continuation.finish()
            }
            return frames
        }

        func send(_ batch: LocationBatch) async throws {}

        func disconnect() async {}

        func lastServerClose() async -> UInt16? { closeCode }
    }

    let clock = ManualClock()
    var timeline: Timeline { Timeline(clock: clock, origin: Date(timeIntervalSince1970: 1_800_000_000)) }

    /// Runs a loop on `channel` for `seconds` of the manual clock, a quarter second at a time (exactly one task,
    /// the loop's backoff or the channel's open stream, sleeps at any time); the times the stream was lost.
    func run(_ channel: ClosingChannel, seconds: Int) async -> Int {
        let loop = DriverStreamLoop(
            channel: channel, backoff: .standard, timeline: timeline, random: DriverRandom(SplitMix64(seed: 1)))
        var lost = 0
        let task = Task { await loop.run { if case .lost = $0 { lost += 1 } } }
        for _ in 0..<(seconds * 4) {
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .milliseconds(250))
        }
        await clock.sleepers(atLeast: 1)
        task.cancel()
        await task.value
        return lost
    }

    /// A minute of a paused Redis: with the standard backoff (1 s doubling to 30 s, equal jitter, seed 1) the app
    /// connects 7 times, where starting over at each connect made it 68 connects (one every 0.5-1 s), each with
    /// the requests a reconnect brings.
    @Test func aMinuteOfTryAgainLaterClosesConnectsAtTheBackoffNotTwiceASecond() async {
        let channel = ClosingChannel(
            upFor: 0, closeCode: WebSocketCloseCode.reconnectLater.rawValue, timeline: timeline)
        let lost = await run(channel, seconds: 60)
        #expect(channel.connects == 7)
        #expect(lost == 7)
    }

    /// A node that crashed drops every stream it held at once, without a close frame: the first reconnect waits
    /// `Backoff.afterDrop`'s draw over 3 s (1.70 s with seed 1, so 21.75 s on the quarter-second clock), where the
    /// standard backoff's 0.5-1 s (0.78 s) brought a whole fleet back within one second.
    @Test func aDropWithoutACloseFrameWaitsTheCrashStormsSpread() async {
        let channel = ClosingChannel(upFor: 20, closeCode: nil, timeline: timeline)
        _ = await run(channel, seconds: 30)
        #expect(channel.connectTimes == [0, 21.75])
    }

    /// A close frame (1001 here) is no crash storm: the backoff's own first wait, 0.78 s with seed 1.
    @Test func aClosedStreamWaitsTheBackoff() async {
        let channel = ClosingChannel(upFor: 20, closeCode: WebSocketCloseCode.goingAway.rawValue, timeline: timeline)
        _ = await run(channel, seconds: 30)
        #expect(channel.connectTimes == [0, 21])
    }

    /// A stream that stayed up (20 s here) and then dropped is a fresh drop: the backoff starts over, and the app
    /// is back within a second each time rather than waiting out a growing backoff.
    @Test func aStreamThatStayedUpStartsTheBackoffOver() async {
        let channel = ClosingChannel(upFor: 20, closeCode: nil, timeline: timeline)
        let lost = await run(channel, seconds: 120)
        #expect(channel.connects == 6)
        #expect(lost == 5)
    }

    /// A server whose REST takes every call while its streams still close with 4013 (its bus gone, its storage
    /// back), told to the loop every second (`serverAnswered`): the loop tries at most once in 10 s, 9 connects in
    /// the minute (7 without the answers) rather than one a second.
    @Test func restAnswersEverySecondWhileStreamsCloseWith4013BringATryForwardAtMostOnceInTenSeconds() async {
        let channel = ClosingChannel(
            upFor: 0, closeCode: WebSocketCloseCode.reconnectLater.rawValue, timeline: timeline)
        let loop = DriverStreamLoop(
            channel: channel, backoff: .standard, timeline: timeline, random: DriverRandom(SplitMix64(seed: 1)))
        let task = Task { await loop.run { _ in } }
        for quarter in 0..<(60 * 4) {
            await clock.sleepers(atLeast: 1)
            if quarter % 4 == 0 { loop.serverAnswered() }
            clock.advance(by: .milliseconds(250))
        }
        await clock.sleepers(atLeast: 1)
        task.cancel()
        await task.value
        // Tries brought forward by the answers at 0, 10, 20, 30, 40 and 50 s, none in between: there the backoff's
        // own waits (1-2, 2-4 and 4-8 s in the first ten seconds).
        #expect(channel.connectTimes == [0, 0.75, 2.75, 5.75, 11, 20.75, 31, 40.75, 50.75])
    }
}
