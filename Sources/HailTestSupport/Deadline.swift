import Dispatch
import Synchronization

/// A one-shot real-time failure deadline that can be called off, so a condition met early does not wait it out.
///
/// A deadline, never a pause: nothing waits for it to pass unless what it guards never happens.
public final class Deadline: Sendable {
    private let state = Mutex<(fired: Bool, continuation: CheckedContinuation<Void, Never>?)>((false, nil))
    private let seconds: Double

    /// A deadline `seconds` of real time after its `wait()` starts.
    public init(seconds: Double) { self.seconds = seconds }

    /// Returns when the deadline passes or is called off, whichever comes first.
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.fired { return true }
                state.continuation = continuation
                return false
            }
            if now { continuation.resume() }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { self.cancel() }
        }
    }

    /// Ends the wait now (the guarded thing happened).
    public func cancel() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.fired = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }
}

/// What `within` throws when its body has not finished in time.
public struct DeadlineMissed: Error, CustomStringConvertible {
    /// What was awaited, and for how long.
    public let description: String
}

/// Runs `body` and returns its result, or throws `DeadlineMissed` naming `what` when it has not finished within
/// `seconds` of real time. The body is left behind then (the test has failed); it is never waited out.
public func within<T: Sendable>(
    _ seconds: Double = 60, _ what: String = "the awaited event",
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let once = Mutex<CheckedContinuation<T, any Error>?>(nil)
    let finish: @Sendable (Result<T, any Error>) -> Void = { result in
        once.withLock { $0.take() }?.resume(with: result)
    }
    return try await withCheckedThrowingContinuation { continuation in
        once.withLock { $0 = continuation }
        Task {
            do { finish(.success(try await body())) } catch { finish(.failure(error)) }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            finish(.failure(DeadlineMissed(description: "\(what): not within \(seconds) s")))
        }
    }
}

/// The body's result, or nil when `seconds` of real time pass first (a failure deadline, never a pause).
public func withDeadline<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async -> T?) async -> T? {
    (try? await within(seconds) { await body() }) ?? nil
}
