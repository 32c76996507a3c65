import Foundation
import Synchronization

/// A connection that lives on one thread of a `ConnectionThreads` and is closed by that thread.
protocol ThreadOwnedConnection: Sendable {
    /// Releases the C handle; called once, on the owning thread, when the threads stop.
    func close()
}

/// Threads of their own, each owning one connection, taking jobs from one queue: the blocking C calls of
/// libpq and hiredis run here, never on Swift's cooperative pool or the network loop.
final class ConnectionThreads<Connection: ThreadOwnedConnection>: Sendable {
    private typealias Job = @Sendable (Connection) -> Void

    private struct Queue {
        var jobs: [Job] = []
        var closed = false
    }

    private let queue = Mutex(Queue())
    // One signal per job, plus one per thread at close: a wake-up that finds no job means "stop".
    private let pending = DispatchSemaphore(value: 0)
    private let threadCount: Int
    private let closedError: any Error & Sendable

    /// Starts one thread per connection.
    init(connections: [Connection], name: String, closedError: any Error & Sendable) {
        threadCount = connections.count
        self.closedError = closedError
        for (index, connection) in connections.enumerated() {
            let thread = Thread { [self] in self.serve(connection) }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Runs `body` on the next free thread with that thread's connection.
    func run<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = submit { connection in continuation.resume(with: Result { try body(connection) }) }
            if !accepted { continuation.resume(throwing: closedError) }
        }
    }

    /// Queues `job` for the next free thread and returns at once, from any thread; false when the threads are
    /// closed and the job will never run.
    func submit(_ job: @escaping @Sendable (Connection) -> Void) -> Bool {
        let accepted = queue.withLock { queue -> Bool in
            guard !queue.closed else { return false }
            queue.jobs.append(job)
            return true
        }
        if accepted { pending.signal() }
        return accepted
    }

    /// Refuses new jobs, lets the queued ones finish, then closes every connection on its own thread.
    func close() {
        let wasClosed = queue.withLock { queue in
            defer { queue.closed = true }
            return queue.closed
        }
        guard !wasClosed else { return }
        for _ in 0..<threadCount { pending.signal() }
    }

    private func serve(_ connection: Connection) {
        while true {
            pending.wait()
            let job: Job? = queue.withLock { $0.jobs.isEmpty ? nil : $0.jobs.removeFirst() }
            guard let job else { break }
            job(connection)
        }
        connection.close()
    }
}
