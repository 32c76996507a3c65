import Foundation
import HailTime
import Synchronization

/// Fires the deadlines of `firstWithin` races from one thread of its own, `resolution` late at most.
///
/// A request deadline is seconds long and bounds a backend that does not answer, so a tenth of a second late is
/// fine; what matters is that a request whose work answers in time pays next to nothing for it. A
/// `DispatchQueue.asyncAfter` per request woke libdispatch's timer thread on every request (a `write` to its
/// event descriptor and an `epoll_wait` turn; `docs/BENCHMARKS.md`, "One turn per request"); here adding and
/// removing a deadline is a dictionary insert and remove under a lock, and the thread wakes `1 / resolution` times a
/// second, once it has been needed.
final class CoarseDeadlines: Sendable {
    /// The one the server's races share.
    static let shared = CoarseDeadlines(resolution: .milliseconds(100))

    private let book = Mutex(DeadlineBook<@Sendable () -> Void>())
    private let started = Atomic<Bool>(false)
    private let resolution: Duration

    private init(resolution: Duration) {
        self.resolution = resolution
    }

    /// Calls `fire` once `delay` has passed (up to `resolution` later), unless `cancel` is called first.
    func schedule(after delay: Duration, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
        let due = ContinuousClock.now + delay
        let id = book.withLock { $0.add(due: due, fire) }
        if !started.load(ordering: .relaxed),
            started.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        {
            let thread = Thread { [self] in run() }
            thread.name = "hail-deadlines"
            thread.start()
        }
        return id
    }

    /// Forgets deadline `id`; its `fire` is not called (unless it already was).
    func cancel(_ id: UInt64) {
        book.withLock { $0.remove(id) }
    }

    private func run() {
        while true {
            Thread.sleep(forTimeInterval: resolution.timeInterval)
            let due = book.withLock { $0.collectDue(now: .now) }
            for fire in due { fire() }
        }
    }
}
