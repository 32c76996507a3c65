import HailNet
import HailThreads
import Synchronization

/// Waits for `work` at most `deadline` (real time: it bounds a wait on a backend): its value, or nil when the
/// deadline came first. The work is not cancelled and not awaited after the deadline: it runs on in a task of
/// its own, bounded by its backends' own timeouts, and what it returns then is dropped.
///
/// The work's task prefers the caller's network loop (`LoopAffinity`), so a route that never suspends is answered
/// on the loop that read it, as without a deadline; the deadline is `DeadlineTimer`'s, at most 20 ms late.
func firstWithin<T: Sendable>(_ deadline: Duration, _ work: @escaping @Sendable () async -> T) async -> T? {
    let once = Once<T?>()
    return await withCheckedContinuation { continuation in
        once.wait(continuation)
        // The deadline fires on a thread of its own, not on the pool where the work's own tasks (and every other
        // request's) may be queued: the caller is resumed on time however busy that pool is.
        let timer = DeadlineTimer.shared.after(deadline) { once.resume(returning: nil) }
        Task(executorPreference: LoopAffinity.preferred) {
            let value = await work()
            DeadlineTimer.shared.cancel(timer)
            once.resume(returning: value)
        }
    }
}

/// A continuation resumed by whichever of two racers comes first.
private final class Once<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, Never>?>(nil)

    func wait(_ waiting: CheckedContinuation<T, Never>) { continuation.withLock { $0 = waiting } }

    func resume(returning value: T) {
        continuation.withLock { $0.take() }?.resume(returning: value)
    }
}
