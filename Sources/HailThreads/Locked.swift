#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value behind a lock, shaped like Synchronization's `Mutex` but available from iOS 17 / macOS 14.
///
/// The app cores' floor is iOS 17, and `Mutex` and `Atomic` are iOS 18 / macOS 15 only; a pthread mutex is the
/// one lock that exists on every platform the package builds for (Linux and Apple alike), so the same code runs
/// on both and the Linux tests exercise what an iPhone runs.
public final class Locked<State>: @unchecked Sendable {
    // The pthread mutex is a C handle that must not move once initialized, hence its own allocation; it is what
    // serializes every access to `state`, which is only ever touched inside `withLock`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var state: State

    /// A lock around `initialState`.
    public init(_ initialState: sending State) {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        state = initialState
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the state, holding the lock; `body` must not call back into this lock.
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending State) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
