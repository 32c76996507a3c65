import Dispatch
import Foundation

/// Threads of their own, each owning one resource (a database connection), taking jobs from one shared queue a
/// job at a time: the blocking C calls of libpq and hiredis run here, never on Swift's cooperative pool or a
/// network loop, and a slow job holds up only its own thread.
///
/// Bounded both ways, so a backend that stops answering costs its callers a refusal within a deadline, never a
/// wait without end: the queue holds at most `capacity` jobs (the next is refused with `ThreadPoolError.full`),
/// and a caller of `run(within:_:)` stops waiting at its deadline (`ThreadPoolError.timedOut`). A job whose
/// caller left before a thread took it is skipped; one already running finishes on its thread, bounded by its
/// connection's own socket timeout, and its result is dropped.
public final class ThreadPool<Resource: Sendable>: Sendable {
    private typealias Job = @Sendable (Resource) -> Void

    private struct State {
        var queue: BoundedQueue<Job>
        var closed = false
    }

    private let state: Locked<State>
    // One signal per job, plus one per thread at close: a wake-up that finds no job means "stop".
    private let pending = DispatchSemaphore(value: 0)
    private let threadCount: Int
    private let name: String
    private let closedError: any Error & Sendable

    /// Starts one thread per resource, named `name-<index>`, in front of a queue of at most `capacity` jobs;
    /// `release` runs on each thread once the pool is closed and its queue is empty, with that thread's
    /// resource; `closedError` is what a job sent after the close gets.
    public init(
        resources: [Resource], name: String, capacity: Int = 1024, closedError: any Error & Sendable,
        release: @escaping @Sendable (Resource) -> Void
    ) {
        threadCount = resources.count
        self.name = name
        self.closedError = closedError
        state = Locked(State(queue: BoundedQueue(capacity: capacity)))
        for (index, resource) in resources.enumerated() {
            let thread = Thread { [self] in
                self.serve(resource)
                release(resource)
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Runs `body` on the next free thread with that thread's resource, waiting at most `deadline` (nil: until it
    /// finishes) for its result.
    public func run<T: Sendable>(
        within deadline: Duration? = nil, _ body: @escaping @Sendable (Resource) throws -> T
    ) async throws -> T {
        let ticket = Ticket<T>()
        return try await withCheckedThrowingContinuation { continuation in
            ticket.wait(continuation)
            let refusal = submit { resource in
                // The caller left before a thread was free: the job's effect is no longer wanted.
                guard ticket.start() else { return }
                ticket.finish(Result { try body(resource) })
            }
            if let refusal {
                ticket.finish(.failure(refusal))
                return
            }
            guard let deadline else { return }
            let error = ThreadPoolError.timedOut(name, after: deadline)
            // On the timer's own thread: a due deadline never waits for a pool thread the work may hold.
            let timer = DeadlineTimer.shared.after(deadline) { ticket.finish(.failure(error)) }
            ticket.onFinish { DeadlineTimer.shared.cancel(timer) }
        }
    }

    /// Queues `job` for the next free thread and returns at once, from any thread: nil when it is queued, the
    /// reason when it will never run (the pool is closed, or its queue is full).
    public func submit(_ job: @escaping @Sendable (Resource) -> Void) -> (any Error & Sendable)? {
        let refusal = state.withLock { state -> (any Error & Sendable)? in
            guard !state.closed else { return closedError }
            guard state.queue.append(job) else { return ThreadPoolError.full(name, capacity: state.queue.capacity) }
            return nil
        }
        if refusal == nil { pending.signal() }
        return refusal
    }

    /// Refuses new jobs, lets the queued ones finish, then releases every resource on its own thread.
    public func close() {
        let wasClosed = state.withLock { state in
            defer { state.closed = true }
            return state.closed
        }
        guard !wasClosed else { return }
        for _ in 0..<threadCount { pending.signal() }
    }

    private func serve(_ resource: Resource) {
        while true {
            pending.wait()
            guard let job = state.withLock({ $0.queue.takeOne() }) else { return }
            job(resource)
        }
    }
}

/// One caller's wait for one job: resumed once, by the job's result or by the deadline, whichever comes first.
private final class Ticket<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var finished = false
        var cleanup: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    func wait(_ continuation: CheckedContinuation<T, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    /// True when the caller still waits, so the job should run.
    func start() -> Bool { state.withLock { !$0.finished } }

    /// Runs `cleanup` once the caller has its result (at once if it already has): the deadline is let go then.
    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            guard !state.finished else { return true }
            state.cleanup = cleanup
            return false
        }
        if runNow { cleanup() }
    }

    /// Hands `result` to the caller unless it already has one.
    func finish(_ result: Result<T, any Error>) {
        let (continuation, cleanup) = state.withLock {
            state -> (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?) in
            guard !state.finished else { return (nil, nil) }
            state.finished = true
            defer {
                state.continuation = nil
                state.cleanup = nil
            }
            return (state.continuation, state.cleanup)
        }
        continuation?.resume(with: result)
        cleanup?()
    }
}
