import Foundation
import HailCore
import HailTesting
import Testing

struct OutboxTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let arrivedKey = UUID(uuidString: "00000000-0000-0000-0000-00000000000A")!
    let startedKey = UUID(uuidString: "00000000-0000-0000-0000-00000000000B")!
    let endedKey = UUID(uuidString: "00000000-0000-0000-0000-00000000000C")!

    func sentKey(_ next: Outbox.Next) -> UUID? {
        if case .send(let entry) = next { return entry.key }
        return nil
    }

    func twoQueued() -> Outbox {
        var outbox = Outbox()
        outbox.enqueue(DriverIntent(.arrived, tripID: "t1"), key: arrivedKey, now: t0)
        outbox.enqueue(DriverIntent(.started, tripID: "t1"), key: startedKey, now: t0)
        return outbox
    }

    @Test func emptyOutboxIsIdle() {
        var outbox = Outbox()
        #expect(outbox.next(now: t0) == .idle)
    }

    @Test func sendsInOrderWithOneInFlight() {
        var outbox = twoQueued()
        #expect(sentKey(outbox.next(now: t0)) == arrivedKey)
        // "started" must not overtake "arrived" while arrived's result is unknown.
        guard case .awaitingResult(let entry) = outbox.next(now: t0) else {
            Issue.record("expected awaitingResult")
            return
        }
        #expect(entry.key == arrivedKey)
        #expect(outbox.inFlight?.key == arrivedKey)
        outbox.succeeded(key: arrivedKey)
        #expect(sentKey(outbox.next(now: t0)) == startedKey)
        outbox.succeeded(key: startedKey)
        #expect(outbox.next(now: t0) == .idle)
        #expect(outbox.pendingIntents.isEmpty)
    }

    @Test func retriesAtTheBackoffTimesWithTheSameKey() {
        var outbox = twoQueued()
        var generator = SplitMix64(seed: 7)
        // Equal jitter on SplitMix64(7), computed independently.
        let delays = [
            0.6949148741956357, 1.0167882945281561, 3.8015213612137666, 6.331721172112312, 11.619535160091747,
        ]
        var now = t0
        var keys: [UUID] = []
        for delay in delays {
            guard let key = sentKey(outbox.next(now: now)) else {
                Issue.record("expected a send at \(now)")
                return
            }
            keys.append(key)
            outbox.failed(key: key, now: now, transient: true, using: &generator)
            let due = now.addingTimeInterval(delay)
            #expect(outbox.next(now: due.addingTimeInterval(-0.001)) == .wait(until: due))
            now = due
        }
        #expect(sentKey(outbox.next(now: now)) == arrivedKey)
        #expect(keys == Array(repeating: arrivedKey, count: 5))
        #expect(outbox.entries.first?.failedAttempts == 5)
    }

    @Test func aBackingOffHeadHoldsBackEverythingBehindIt() {
        var outbox = twoQueued()
        var generator = SplitMix64(seed: 7)
        _ = outbox.next(now: t0)
        outbox.failed(key: arrivedKey, now: t0, transient: false, using: &generator)
        let due = t0.addingTimeInterval(0.6949148741956357)
        #expect(outbox.next(now: t0.addingTimeInterval(0.5)) == .wait(until: due))
        #expect(sentKey(outbox.next(now: due)) == arrivedKey)
    }

    @Test func retriesNeverWaitMoreThanThirtySeconds() {
        var outbox = twoQueued()
        var generator = SplitMix64(seed: 3)
        var now = t0
        for _ in 0..<30 {
            guard let key = sentKey(outbox.next(now: now)) else {
                Issue.record("expected a send")
                return
            }
            outbox.failed(key: key, now: now, transient: true, using: &generator)
            guard case .wait(let until) = outbox.next(now: now) else {
                Issue.record("expected a wait")
                return
            }
            #expect(until.timeIntervalSince(now) <= 30 && until.timeIntervalSince(now) >= 0)
            now = until
        }
    }

    @Test func rejectionRetiresWithItsReasonAndTheQueueMovesOn() {
        var outbox = twoQueued()
        _ = outbox.next(now: t0)
        outbox.rejected(key: arrivedKey, reason: "the trip was cancelled by the rider")
        #expect(
            outbox.rejections == [
                Outbox.Rejection(
                    key: arrivedKey,
                    intent: DriverIntent(.arrived, tripID: "t1"),
                    reason: "the trip was cancelled by the rider"
                )
            ]
        )
        #expect(outbox.pendingIntents == [DriverIntent(.started, tripID: "t1")])
        #expect(sentKey(outbox.next(now: t0)) == startedKey)
        outbox.dismissRejection(key: arrivedKey)
        #expect(outbox.rejections.isEmpty)
    }

    @Test func pendingIntentsDriveTheOptimisticScreen() {
        var outbox = Outbox()
        outbox.enqueue(DriverIntent(.ended, tripID: "t9"), key: endedKey, now: t0)
        #expect(outbox.isPending(.ended, tripID: "t9"))
        #expect(!outbox.isPending(.ended, tripID: "t8"))
        #expect(!outbox.isPending(.started, tripID: "t9"))
        _ = outbox.next(now: t0)
        outbox.succeeded(key: endedKey)
        #expect(!outbox.isPending(.ended, tripID: "t9"))
    }

    @Test func aSecondTapOrAReusedKeyIsAbsorbed() {
        var outbox = twoQueued()
        let secondTap = outbox.enqueue(DriverIntent(.arrived, tripID: "t1"), key: endedKey, now: t0)
        let reusedKey = outbox.enqueue(DriverIntent(.ended, tripID: "t1"), key: arrivedKey, now: t0)
        let fresh = outbox.enqueue(DriverIntent(.ended, tripID: "t1"), key: endedKey, now: t0)
        #expect(!secondTap)
        #expect(!reusedKey)
        #expect(fresh)
        #expect(outbox.entries.map(\.key) == [arrivedKey, startedKey, endedKey])
    }

    @Test func connectivityReturningWakesOnlyNetworkFailures() {
        var generator = SplitMix64(seed: 7)
        var network = Outbox()
        network.enqueue(DriverIntent(.ended, tripID: "t1"), key: endedKey, now: t0)
        _ = network.next(now: t0)
        network.failed(key: endedKey, now: t0, transient: true, using: &generator)
        var server = network
        server.failed(key: endedKey, now: t0, transient: false, using: &generator)
        let later = t0.addingTimeInterval(0.1)
        network.connectivityRestored(now: later)
        server.connectivityRestored(now: later)
        #expect(sentKey(network.next(now: later)) == endedKey)
        #expect(sentKey(server.next(now: later)) == nil)
    }

    @Test func survivesEncodeAndDecodeAndResendsWhatWasInFlight() throws {
        var outbox = twoQueued()
        var generator = SplitMix64(seed: 7)
        _ = outbox.next(now: t0)
        outbox.failed(key: arrivedKey, now: t0, transient: true, using: &generator)
        let due = t0.addingTimeInterval(0.6949148741956357)
        #expect(sentKey(outbox.next(now: due)) == arrivedKey)
        outbox.rejected(key: endedKey, reason: "unknown keys change nothing")

        let data = try JSONEncoder().encode(outbox)
        var restored = try JSONDecoder().decode(Outbox.self, from: data)
        #expect(restored.entries == outbox.entries)
        #expect(restored.rejections == outbox.rejections)
        // The app died with arrived in flight; after the restart it goes again with the same key.
        #expect(restored.inFlight == nil)
        #expect(sentKey(restored.next(now: due)) == arrivedKey)
        restored.succeeded(key: arrivedKey)
        #expect(sentKey(restored.next(now: due)) == startedKey)
    }

    @Test func aRejectionKeepsTheServersCodeAndOneSavedBeforeCodesReadsWithout() throws {
        var outbox = twoQueued()
        _ = outbox.next(now: t0)
        outbox.rejected(key: arrivedKey, reason: "the trip was cancelled by the rider", code: "invalid_state")
        let restored = try JSONDecoder().decode(Outbox.self, from: try JSONEncoder().encode(outbox))
        #expect(restored.rejections.first?.code == "invalid_state")
        // A state an older app saved: the rejection has no code, and still reads.
        let backoff = String(decoding: try JSONEncoder().encode(Backoff.standard), as: UTF8.self)
        let saved = Data(
            (#"{"entries": [], "rejections": [{"key": "00000000-0000-0000-0000-00000000000A", "intent": "#
                + #"{"kind": "arrived", "tripID": "t1"}, "reason": "refused"}], "backoff": \#(backoff)}"#).utf8)
        let old = try JSONDecoder().decode(Outbox.self, from: saved)
        #expect(
            old.rejections == [
                Outbox.Rejection(key: arrivedKey, intent: DriverIntent(.arrived, tripID: "t1"), reason: "refused")
            ])
    }

    @Test func resultsForUnknownKeysChangeNothing() {
        var outbox = twoQueued()
        var generator = SplitMix64(seed: 1)
        _ = outbox.next(now: t0)
        let before = outbox
        outbox.succeeded(key: endedKey)
        outbox.failed(key: endedKey, now: t0, transient: true, using: &generator)
        outbox.rejected(key: endedKey, reason: "no such entry")
        #expect(outbox == before)
    }
}
