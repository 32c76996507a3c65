import Foundation
import HailServer
import HailTesting
import HailTime
import Synchronization
import Testing

/// The drain's runtime on a manual clock against a stand-in node: what it does to the node, in what order, when.
@Suite struct NodeDrainTests {
    /// A node of `streams` WebSockets that go away when closed, recording every call with the clock's second.
    final class StandInNode: DrainTarget, Sendable {
        struct State {
            var open: Set<UInt64>
            var watchers: Set<UInt64> = []
            /// The streams closed, in order.
            var closed: [UInt64] = []
            var requests = 0
            var calls: [String] = []
            var flushes = 0
        }
        let state: Mutex<State>
        let clock: ManualClock

        /// `streams` drivers' streams (ids 1...), and `watchers` others (ids 1001...).
        init(streams: Int, watchers: Int = 0, requests: Int, clock: ManualClock) {
            let watching = Set((0..<UInt64(watchers)).map { 1001 + $0 })
            state = Mutex(
                State(
                    open: Set((1...UInt64(streams)).map { $0 }).union(watching), watchers: watching, requests: requests)
            )
            self.clock = clock
        }

        private func note(_ call: String) {
            let tenths = Int((clock.now.offset / .milliseconds(100)).rounded())
            state.withLock { $0.calls.append("\(call)@\(Double(tenths) / 10)") }
        }

        func markUnready() { note("unready") }
        func stopAccepting() async -> DrainStreams {
            note("stopAccepting")
            return state.withLock { state in
                DrainStreams(
                    drivers: state.open.subtracting(state.watchers).sorted(), watchers: state.watchers.sorted())
            }
        }
        func closeStreams(_ ids: [UInt64]) async {
            state.withLock { state in
                for id in ids where state.open.remove(id) != nil { state.closed.append(id) }
            }
        }
        func closeRemainingStreams() async {
            note("closeRemaining")
            state.withLock { $0.open.removeAll() }
        }
        func openWork() async -> (streams: Int, requests: Int) { state.withLock { ($0.open.count, $0.requests) } }
        func flush() async {
            note("flush")
            state.withLock { $0.flushes += 1 }
        }
        var calls: [String] { state.withLock { $0.calls } }
        var open: Int { state.withLock { $0.open.count } }
        var closed: [UInt64] { state.withLock { $0.closed } }
        func answerRequests() { state.withLock { $0.requests = 0 } }
    }

    private func drain(
        _ node: StandInNode, clock: ManualClock, settings: DrainSettings,
        log: @escaping @Sendable (String, [String: String]) -> Void = { _, _ in }
    ) -> NodeDrain {
        NodeDrain(
            target: node, settings: settings, time: Timeline(clock: clock, origin: Date(timeIntervalSince1970: 0)),
            seed: 5, tickInterval: .milliseconds(100), log: log)
    }

    /// Advances the clock one tick at a time, each once the runtime sleeps again (it has done the last one).
    private func advance(_ clock: ManualClock, ticks: Int) async {
        for _ in 0..<ticks {
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .milliseconds(100))
        }
        await clock.sleepers(atLeast: 1)
    }

    @Test func aDrainGoesUnreadyStopsAcceptingMovesEveryStreamWaitsForRequestsFlushesAndEnds() async {
        let clock = ManualClock()
        let node = StandInNode(streams: 40, requests: 1, clock: clock)
        let drain = drain(node, clock: clock, settings: DrainSettings(grace: 2, spread: 4, bound: 20))
        await drain.terminate()
        #expect(node.calls == ["unready@0.0"])
        await advance(clock, ticks: 19)
        #expect(node.calls == ["unready@0.0"])
        #expect(node.open == 40)
        await advance(clock, ticks: 1)
        #expect(node.calls == ["unready@0.0", "stopAccepting@2.0"])
        await advance(clock, ticks: 20)
        // Half the window, half the streams: 10 a second.
        #expect(node.open == 20)
        await advance(clock, ticks: 20)
        #expect(node.open == 0)
        // The request still in flight holds the flush back.
        await advance(clock, ticks: 10)
        #expect(node.calls == ["unready@0.0", "stopAccepting@2.0", "closeRemaining@6.0"])
        node.answerRequests()
        clock.advance(by: .milliseconds(100))
        #expect(await drain.finished() == .drained)
        #expect(node.calls == ["unready@0.0", "stopAccepting@2.0", "closeRemaining@6.0", "flush@7.1"])
    }

    @Test func theDriversAreMovedBeforeAnyWatcherAndTheLogSaysWhen() async {
        let clock = ManualClock()
        let node = StandInNode(streams: 30, watchers: 10, requests: 0, clock: clock)
        let lines = Mutex<[String]>([])
        let drain = drain(
            node, clock: clock, settings: DrainSettings(grace: 1, spread: 4, handover: 2, bound: 20),
            log: { event, fields in
                lines.withLock {
                    $0.append(
                        event + " "
                            + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
                }
            })
        await drain.terminate()
        await advance(clock, ticks: 10)
        #expect(
            lines.withLock { $0 }.last
                == "drain_listeners_closed drivers=30 drivers_window_seconds=3.0 handover_seconds=2.0 streams=40"
                + " watchers=10 watchers_window_seconds=1.0")
        // The drivers over [1, 4) s, ten a second; no watcher before the handover ends at 6 s.
        await advance(clock, ticks: 15)
        #expect(node.closed.count == 15)
        await advance(clock, ticks: 15)
        #expect(node.closed.count == 30)
        #expect(node.closed.allSatisfy { $0 <= 30 })
        await advance(clock, ticks: 19)
        #expect(node.closed.count == 30)
        await advance(clock, ticks: 11)
        #expect(node.closed.count == 40)
        #expect(node.closed.suffix(10).sorted() == (1001...1010).map(UInt64.init))
        clock.advance(by: .milliseconds(100))
        #expect(await drain.finished() == .drained)
    }

    @Test func aSecondSignalEndsTheDrainAtOnceAndNothingMoreIsDone() async {
        let clock = ManualClock()
        let node = StandInNode(streams: 4, requests: 0, clock: clock)
        let drain = drain(node, clock: clock, settings: DrainSettings(grace: 2, spread: 4, bound: 20))
        await drain.terminate()
        await advance(clock, ticks: 3)
        await drain.terminate()
        #expect(await drain.finished() == .forced)
        clock.advance(by: .seconds(30))
        #expect(node.calls == ["unready@0.0"])
        #expect(node.open == 4)
    }

    @Test func theBoundEndsADrainWhoseRequestsNeverFinish() async {
        let clock = ManualClock()
        let node = StandInNode(streams: 2, requests: 3, clock: clock)
        let drain = drain(node, clock: clock, settings: DrainSettings(grace: 1, spread: 1, bound: 5))
        await drain.terminate()
        await advance(clock, ticks: 49)
        clock.advance(by: .milliseconds(100))
        #expect(await drain.finished() == .boundReached)
        #expect(node.calls == ["unready@0.0", "stopAccepting@1.0", "closeRemaining@2.0"])
    }
}
