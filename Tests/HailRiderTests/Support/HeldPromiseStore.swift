import Foundation
import HailCore
import HailRider

/// A cursor store whose promise reads wait until the test lets them go, so a test can look at the model while
/// it is suspended on the store.
actor HeldPromiseStore: CursorStore {
    private let stored = InMemoryCursorStore()
    private var held: [CheckedContinuation<Void, Never>] = []
    private var watchers: [CheckedContinuation<Void, Never>] = []

    func load(tripID: String) async -> Int64? { await stored.load(tripID: tripID) }

    func save(_ seq: Int64, tripID: String) async { await stored.save(seq, tripID: tripID) }

    func loadPromise(tripID: String, state: TripState) async -> Date? {
        await withCheckedContinuation { continuation in
            held.append(continuation)
            for watcher in watchers { watcher.resume() }
            watchers = []
        }
        return await stored.loadPromise(tripID: tripID, state: state)
    }

    func savePromise(_ arrival: Date, tripID: String, state: TripState) async {
        await stored.savePromise(arrival, tripID: tripID, state: state)
    }

    /// Returns once a promise read is waiting.
    func untilAReadIsHeld() async {
        guard held.isEmpty else { return }
        await withCheckedContinuation { watchers.append($0) }
    }

    /// Lets every waiting read answer.
    func release() {
        for read in held { read.resume() }
        held = []
    }
}
