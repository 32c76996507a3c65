#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A serial executor that runs every job on one dedicated thread of its own.
///
/// SQLite calls block on disk (an fsync per commit under full durability). Run on Swift's cooperative pool, which
/// has one thread per core, a few slow commits would stall every other task in the process, network handlers
/// included. This thread absorbs the blocking instead. It is a plain pthread rather than a Dispatch queue because
/// Linux's Dispatch has no `DispatchSerialQueue` executor, and because one fixed thread makes "which thread ran
/// this" a checkable fact.
///
/// `@unchecked Sendable` because its job queue is shared between the threads that enqueue and the worker
/// thread; every access to `pending`, `stopping`, `finished` and `worker` holds `mutex`.
final class SQLiteThreadExecutor: SerialExecutor, @unchecked Sendable {
    private enum Work {
        case job(UnownedJob)
        case closure(@Sendable () -> Void)
    }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let wakeUp: UnsafeMutablePointer<pthread_cond_t>
    private var pending: [Work] = []
    private var stopping = false
    private var finished = false
    private var worker: pthread_t?

    /// Starts the thread; it runs until `stop()` and then exits once its queue is empty.
    init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        wakeUp = .allocate(capacity: 1)
        pthread_cond_init(wakeUp, nil)
        // The thread keeps the executor alive until it exits; `stop()` is what ends it.
        let context = Unmanaged.passRetained(ThreadStart(executor: self)).toOpaque()
        var thread: pthread_t? = nil
        let code = Self.startThread(&thread, context)
        precondition(code == 0, "cannot start the SQLite thread: pthread_create returned \(code)")
    }

    deinit {
        pthread_cond_destroy(wakeUp)
        wakeUp.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func checkIsolated() {
        precondition(isCurrentThread, "expected to run on the SQLite thread of this database")
    }

    /// Runs a closure on the thread, for work that is not a task (closing a connection from a deinit).
    func execute(_ work: @escaping @Sendable () -> Void) {
        submit(.closure(work))
    }

    /// Lets the thread exit once it has run everything already queued.
    func stop() {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_signal(wakeUp)
        pthread_mutex_unlock(mutex)
    }

    /// True when called on this executor's thread.
    var isCurrentThread: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard let worker else { return false }
        return pthread_equal(worker, pthread_self()) != 0
    }

    private func submit(_ work: Work) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        precondition(!finished, "work was sent to a SQLite thread that has already exited")
        pending.append(work)
        pthread_cond_signal(wakeUp)
    }

    /// The thread's whole life: take everything queued in one go, run it outside the lock, repeat.
    fileprivate func runLoop() {
        let unowned = asUnownedSerialExecutor()
        var batch: [Work] = []
        while true {
            pthread_mutex_lock(mutex)
            while pending.isEmpty && !stopping { pthread_cond_wait(wakeUp, mutex) }
            if pending.isEmpty {
                finished = true
                pthread_mutex_unlock(mutex)
                return
            }
            swap(&batch, &pending)
            pthread_mutex_unlock(mutex)
            for work in batch {
                switch work {
                case .job(let job): job.runSynchronously(on: unowned)
                case .closure(let closure): closure()
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
    }

    fileprivate func began(on thread: pthread_t) {
        pthread_mutex_lock(mutex)
        worker = thread
        pthread_mutex_unlock(mutex)
    }

    private static func startThread(_ thread: inout pthread_t?, _ context: UnsafeMutableRawPointer) -> Int32 {
        #if canImport(Darwin)
            return pthread_create(&thread, nil, threadMain, context)
        #else
            var created = pthread_t()
            let code = pthread_create(&created, nil, threadMain, context)
            thread = created
            return code
        #endif
    }
}

/// What the new thread needs, passed through pthread_create's single pointer.
private final class ThreadStart {
    let executor: SQLiteThreadExecutor

    init(executor: SQLiteThreadExecutor) { self.executor = executor }
}

#if canImport(Darwin)
    private func threadMain(_ context: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        runThread(context)
        return nil
    }
#else
    private func threadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        guard let context else { return nil }
        runThread(context)
        return nil
    }
#endif

private func runThread(_ context: UnsafeMutableRawPointer) {
    let start = Unmanaged<ThreadStart>.fromOpaque(context).takeRetainedValue()
    let me = pthread_self()
    pthread_detach(me)
    start.executor.began(on: me)
    start.executor.runLoop()
}
