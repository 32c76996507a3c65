import Foundation

/// Runs short actions at their deadlines on a thread of its own, for the waits that bound a backend call or a
/// request: that a deadline fires on time must never depend on a thread the work it bounds may hold.
///
/// `DispatchQueue.global().asyncAfter` does not give that: its block runs on the global concurrent pool, which on
/// Linux is also Swift concurrency's cooperative pool, as wide as the machine has cores. Under load (route searches,
/// map matches and JSON on a 2-core node) a due deadline waited there behind that work, and a request bounded at
/// 4 s was answered at 5.4 s. It also woke libdispatch's timer thread once per request.
///
/// The deadlines bounded here are seconds long, so the timer is coarse: its thread looks every `resolution` (20 ms
/// for the process's timer: 50 cheap wake-ups a second, and a request's answer at most that much past its
/// deadline on this account) and fires what is due, at most that late. Setting and cancelling a deadline is a dictionary insert and remove
/// under a lock, which is all a request or a backend call that answers in time pays. An action must be short and
/// must not block: it resumes a continuation, and what follows runs where that continuation's task runs.
public final class DeadlineTimer: Sendable {
    /// The process's timer, 20 ms coarse.
    public static let shared = DeadlineTimer(name: "hail-deadlines", resolution: .milliseconds(20))

    /// A deadline set with `after`, to `cancel` it.
    public struct Ticket: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    private let book = Locked(DeadlineBook<@Sendable () -> Void>())
    private let resolution: Duration

    /// A timer with its own thread named `name`, looking every `resolution`.
    public init(name: String, resolution: Duration) {
        self.resolution = resolution
        let thread = Thread { [self] in self.serve() }
        thread.name = name
        thread.start()
    }

    /// Runs `action` on the timer's thread once `delay` has passed (up to `resolution` later), unless the ticket
    /// is cancelled first.
    @discardableResult
    public func after(_ delay: Duration, _ action: @escaping @Sendable () -> Void) -> Ticket {
        let due = ContinuousClock.now + delay
        return Ticket(id: book.withLock { $0.add(due: due, action) })
    }

    /// Forgets the deadline: its action does not run (unless it already has).
    public func cancel(_ ticket: Ticket) {
        book.withLock { $0.remove(ticket.id) }
    }

    /// Actions waiting for their deadline.
    public var pending: Int { book.withLock { $0.count } }

    private func serve() {
        let interval = Double(resolution.components.seconds) + Double(resolution.components.attoseconds) / 1e18
        while true {
            Thread.sleep(forTimeInterval: interval)
            let due = book.withLock { $0.collectDue(now: .now) }
            for action in due { action() }
        }
    }
}
