import Foundation
import HailAppDoubles
import HailCore
import HailProtocol
import HailTestSupport
import HailTime
import Testing

@testable import HailDriver

/// A store whose writes wait until the test lets them through, telling the test each one that begins.
private actor GatedStore: OutboxStore {
    private(set) var written: [Bool] = []
    private var gates: [CheckedContinuation<Void, Never>] = []
    nonisolated let begun: AsyncStream<Void>
    private let began: AsyncStream<Void>.Continuation

    init() { (begun, began) = AsyncStream.makeStream(of: Void.self) }

    func load() -> DriverSavedState? { nil }

    func save(_ state: DriverSavedState) async {
        await withCheckedContinuation {
            gates.append($0)
            began.yield()
        }
        written.append(state.online)
    }

    /// Lets the oldest waiting write through.
    func release() {
        guard !gates.isEmpty else { return }
        gates.removeFirst().resume()
    }
}

/// What the snapshot reads: the model's state, changed by the test between saves.
@MainActor
private final class Phone {
    var online = false
}

@Suite("DriverModel's parts: ordered saves, tracked tasks")
@MainActor
struct DriverPartsTests {
    static func state(online: Bool) -> DriverSavedState {
        DriverSavedState(outbox: Outbox(), batcher: LocationBatcher().snapshot, trip: nil, online: online)
    }

    @Test func savesAskedForDuringAWriteFoldIntoOneWriteOfTheNewestState() async throws {
        let store = GatedStore()
        var begun = store.begun.makeAsyncIterator()
        let saves = DriverSaves(store: store)
        let phone = Phone()
        saves.snapshot = { Self.state(online: phone.online) }
        var finished: [Int] = []
        let first = Task { @MainActor in
            await saves.save()
            finished.append(1)
        }
        await begun.next()
        // Two more changes and saves while the first write (offline) is on its way.
        phone.online = true
        let second = Task { @MainActor in
            await saves.save()
            finished.append(2)
        }
        let third = Task { @MainActor in
            await saves.save()
            finished.append(3)
        }
        await store.release()
        await first.value
        await begun.next()
        #expect(finished == [1])
        await store.release()
        await second.value
        await third.value
        // Two writes, the newest last; the second and third saves returned only once the newest state was down.
        #expect(await store.written == [false, true])
        #expect(finished.sorted() == [1, 2, 3])
    }

    @Test func aSaveWithNoModelBehindItWritesNothingAndReturns() async {
        let store = MemoryOutboxStore()
        let saves = DriverSaves(store: store)
        await saves.save()
        #expect(await store.saveCount == 0)
        saves.snapshot = { Self.state(online: true) }
        await saves.save()
        #expect(await store.saveCount == 1)
    }

    @Test func cancellingAllEndsNamedAndOneShotTasks() async throws {
        let tasks = DriverTasks()
        let clock = ManualClock()
        let (ended, end) = AsyncStream.makeStream(of: String.self)
        tasks.start(.stream) { _ in
            do { try await clock.sleep(for: .seconds(3600)) } catch { end.yield("stream cancelled") }
        }
        tasks.spawn {
            do { try await clock.sleep(for: .seconds(3600)) } catch { end.yield("one-shot cancelled") }
        }
        await clock.sleepers(atLeast: 2)
        #expect(tasks.isRunning(.stream))
        tasks.cancelAll()
        #expect(!tasks.isRunning(.stream))
        var seen: Set<String> = []
        for await what in ended {
            seen.insert(what)
            if seen.count == 2 { break }
        }
        #expect(seen == ["stream cancelled", "one-shot cancelled"])
    }

    @Test func startingANamedTaskAgainReplacesItUnlessAskedToKeepOrder() async throws {
        let tasks = DriverTasks()
        let clock = ManualClock()
        let (events, event) = AsyncStream.makeStream(of: String.self)
        tasks.start(.policy) { _ in
            do { try await clock.sleep(for: .seconds(1)) } catch { event.yield("first cancelled") }
            event.yield("first")
        }
        tasks.start(.policy, keepingPrevious: true) { previous in
            await previous?.value
            event.yield("second")
        }
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        tasks.start(.offerLapse) { _ in
            do { try await clock.sleep(for: .seconds(3600)) } catch { event.yield("lapse cancelled") }
        }
        await clock.sleepers(atLeast: 1)
        tasks.start(.offerLapse) { _ in event.yield("lapse replaced") }
        var seen: [String] = []
        for await what in events {
            seen.append(what)
            if seen.count == 4 { break }
        }
        // The kept order: the second policy after the first, never cancelled; the replaced lapse cancelled.
        #expect(seen.filter { $0.hasPrefix("first") || $0 == "second" } == ["first", "second"])
        #expect(Set(seen.filter { $0.hasPrefix("lapse") }) == ["lapse cancelled", "lapse replaced"])
    }
}

@Suite("DriverModel.shutdown ends every task")
@MainActor
struct DriverShutdownTests {
    @Test func afterShutdownNoFixIsTakenNoBatchIsSentAndTheStreamStaysDown() async throws {
        let rig = DriverModelTests()
        try await rig.online()
        let connects = rig.channel.connects
        await rig.model.shutdown()
        let accepted = rig.model.pipeline.filter.counts.accepted
        rig.source.yield(
            LocationPoint(
                lat: Fixture.pickup.lat, lng: Fixture.pickup.lng, accuracy: 5, heading: 0, speed: 0, t: Fixture.origin))
        // The reconnect's backoff would have run out by now, and a fix a second been taken.
        rig.clock.advance(by: .seconds(120))
        // Nothing to wait for: had any task survived, it would have run by the time these yields are done.
        for _ in 0..<50 { await Task.yield() }
        #expect(rig.model.pipeline.filter.counts.accepted == accepted)
        #expect(rig.channel.sent.isEmpty)
        #expect(rig.channel.connects == connects)
    }
}
