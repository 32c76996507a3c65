import HailCore

/// Writes the driver's state to its store one save at a time, newest last: a save asked for while another is
/// writing is folded into the next write, which takes the state as it is then. Unordered saves (two tasks each
/// writing the state it saw) could leave an older state on disk after a newer one.
@MainActor
final class DriverSaves {
    private let store: any OutboxStore
    /// The state to write now; nil (not set, or its model is gone) writes nothing.
    var snapshot: @MainActor () -> DriverSavedState? = { nil }
    /// Told each state written.
    var saved: @MainActor (DriverSavedState) -> Void = { _ in }
    /// Told each failed write.
    var failed: @MainActor (any Error) -> Void = { _ in }
    private var asked = 0
    private var writing = false
    /// Saves asked for during a write; the oldest is handed the next write (true) or told its state is down (false).
    private var waiting: [(ask: Int, continuation: CheckedContinuation<Bool, Never>)] = []

    /// Saves to `store` what `snapshot` gives.
    init(store: any OutboxStore) {
        self.store = store
    }

    /// Returns once a write that began after this call has ended (a failed one is told to `failed`). A caller
    /// waits for at most the write under way and one more: the write it starts itself, or one that covers it.
    func save() async {
        asked += 1
        let ask = asked
        if writing {
            let mustWrite = await withCheckedContinuation { waiting.append((ask, $0)) }
            guard mustWrite else { return }
        }
        writing = true
        let upTo = asked
        if let state = snapshot() {
            do {
                try await store.save(state)
                saved(state)
            } catch {
                failed(error)
            }
        }
        let covered = waiting.filter { $0.ask <= upTo }
        waiting.removeAll { $0.ask <= upTo }
        for waiter in covered { waiter.continuation.resume(returning: false) }
        if waiting.isEmpty {
            writing = false
        } else {
            waiting.removeFirst().continuation.resume(returning: true)
        }
    }
}
