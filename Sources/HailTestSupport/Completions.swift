import Synchronization

/// Gathers completions from any thread and hands them over once the expected number has arrived.
public final class Completions: Sendable {
    /// The results so far and the test waiting for all of them.
    private struct State {
        var results: [Result<Void, any Error>] = []
        var waiter: CheckedContinuation<[Result<Void, any Error>], Never>?
    }

    private let expected: Int
    private let state = Mutex(State())

    /// Expects `expected` completions.
    public init(expected: Int) { self.expected = expected }

    /// How many have arrived so far.
    public var count: Int { state.withLock { $0.results.count } }

    /// Records one completion; usable directly as a `whenCommitted` callback.
    @Sendable public func record(_ result: Result<Void, any Error>) {
        let done = state.withLock {
            state -> (CheckedContinuation<[Result<Void, any Error>], Never>, [Result<Void, any Error>])? in
            state.results.append(result)
            guard state.results.count == expected, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, state.results)
        }
        // Resumed outside the lock: the test may go on to read these on the same thread.
        if let (waiter, results) = done { waiter.resume(returning: results) }
    }

    /// Waits until every expected completion has arrived and returns them in arrival order.
    public func all() async -> [Result<Void, any Error>] {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> [Result<Void, any Error>]? in
                guard state.results.count < expected else { return state.results }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
