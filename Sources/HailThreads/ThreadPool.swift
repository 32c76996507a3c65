import Dispatch
import Foundation

/// Threads of their own, each owning one resource (a database connection), taking jobs from one shared queue a
/// job at a time: the blocking C calls of libpq and hiredis run here, never on Swift's cooperative pool or a
/// network loop, and a slow job holds up only its own thread.
public final class ThreadPool<Resource: Sendable>: Sendable {
    private typealias Job = @Sendable (Resource) -> Void

    private struct State {
        var queue = BatchQueue<Job>()
        var closed = false
    }

    private let state = Locked(State())
    // One signal per job, plus one per thread at close: a wake-up that finds no job means "stop".
    private let pending = DispatchSemaphore(value: 0)
    private let threadCount: Int
    private let closedError: any Error & Sendable

    /// Starts one thread per resource, named `name-<index>`; `release` runs on each thread once the pool is
    /// closed and its queue is empty, with that thread's resource; `closedError` is what a job sent after the
    /// close gets.
    public init(
        resources: [Resource], name: String, closedError: any Error & Sendable,
        release: @escaping @Sendable (Resource) -> Void
    ) {
        threadCount = resources.count
        self.closedError = closedError
        for (index, resource) in resources.enumerated() {
            let thread = Thread { [self] in
                self.serve(resource)
                release(resource)
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Runs `body` on the next free thread with that thread's resource.
    public func run<T: Sendable>(_ body: @escaping @Sendable (Resource) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = submit { resource in continuation.resume(with: Result { try body(resource) }) }
            if !accepted { continuation.resume(throwing: closedError) }
        }
    }

    /// Queues `job` for the next free thread and returns at once, from any thread; false when the pool is closed
    /// and the job will never run.
    public func submit(_ job: @escaping @Sendable (Resource) -> Void) -> Bool {
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            _ = state.queue.append(job)
            return true
        }
        if accepted { pending.signal() }
        return accepted
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
