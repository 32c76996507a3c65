import CLibWebSockets
import HailThreads
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The serial executor of one lws context, and the task executor its requests' handlers prefer: its jobs run on
/// that context's loop thread.
///
/// As a task executor it runs a handler's nonisolated code where the request was read, so a handler that does not
/// suspend never leaves the loop thread and its answer is written in the same turn of the loop; one that awaits
/// an actor elsewhere (a store) hops only for that await and comes back here.
///
/// Work from other threads is appended to a locked `BatchQueue` (the queue every thread of Hail's own drains)
/// and the loop is woken with `lws_cancel_service` once per batch, however many posts the batch holds; lws then delivers
/// `LWS_CALLBACK_EVENT_WAIT_CANCELLED` on the loop thread, where `drain()` runs the whole batch. Once the
/// loop has stopped for good, whoever enqueues drains the queue itself (one drainer at a time), so a
/// continuation that arrives late still resumes.
///
/// Which thread may touch lws is kept in two atomics, so `isOnLoopThread`, asked on every lws callback
/// and every send, is a thread-identity compare without a lock.
final class LoopExecutor: SerialExecutor, TaskExecutor, Sendable {
    /// One unit of work: a Swift job (an actor hop) or a plain block posted from any thread.
    private enum Work: Sendable {
        case job(UnownedJob)
        case block(@Sendable () -> Void)
    }

    /// The lws context pointer, carried inside the lock.
    private struct ContextHandle: @unchecked Sendable {
        // @unchecked: only passed to lws_cancel_service, which is thread-safe, and only while the
        // phase is `.running`, which the loop thread leaves (under the lock) before destroying it.
        let pointer: OpaquePointer
    }

    private enum Phase {
        /// The context is being created on a caller thread; nothing drains yet.
        case starting
        /// The loop thread services the context and drains when woken.
        case running(context: ContextHandle)
        /// The context is gone; enqueuers drain.
        case stopped
    }

    private struct State {
        var queue = BatchQueue<Work>()
        var phase = Phase.starting
        /// A thread is draining after the stop (claimed under the lock; mirrored in `lateDrainer`).
        var lateDrainerClaimed = false
        /// While the loop thread runs work in place (`runInPlace`), what it submits itself waits here, to be run
        /// before that call returns, instead of in the queue with a wake-up.
        var inPlace: [Work]?
    }

    // The context pointer inside is only passed to lws_cancel_service, which is thread-safe,
    // and only while `phase` is `.running`, which the loop thread leaves under this same lock.
    private let state = Mutex(State())
    /// The thread allowed to touch lws state (the creating thread, then the loop thread); 0 for none.
    private let owner = Atomic<UInt>(0)
    /// A thread draining after the stop, which also counts as isolated while it drains; 0 for none.
    private let lateDrainer = Atomic<UInt>(0)

    init() {}

    /// This thread's identity as a number.
    static var currentThread: UInt { ThreadIdentity.current }

    /// Marks the calling thread as the one creating the context.
    func beginCreation() {
        owner.store(Self.currentThread, ordering: .releasing)
    }

    /// The creating thread is done with the context; until the loop thread starts nobody owns it.
    func endCreation() {
        owner.store(0, ordering: .releasing)
    }

    /// Called on the loop thread once the context exists: from now on this thread owns lws.
    func loopStarted(context: OpaquePointer) {
        owner.store(Self.currentThread, ordering: .releasing)
        state.withLock { state in
            state.phase = .running(context: ContextHandle(pointer: context))
            // Anything queued while starting needs a first drain (its first append asked for the wake-up).
            if !state.queue.isEmpty { lws_cancel_service(context) }
        }
    }

    /// Called on the loop thread after lws_service has returned and before the context is destroyed
    /// for the last time: no more wake-ups may reach the context.
    func loopStopping() {
        state.withLock { $0.phase = .stopped }
    }

    /// Called by the loop thread as its last act: runs whatever is left, then hands draining to enqueuers.
    func loopFinished() {
        owner.store(0, ordering: .releasing)
        drainAfterStop()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    /// Runs `block` on the loop thread (or, after the stop, on the draining thread), in order with jobs.
    func post(_ block: @escaping @Sendable () -> Void) {
        submit(.block(block))
    }

    /// Runs `body` on the loop thread, then, before returning, every job and block the loop thread submitted to
    /// this executor meanwhile (and those submit), in order: a task started in `body` for a handler that never
    /// suspends runs to its end here, with no `lws_cancel_service` wake-up and no further turn of the loop. Work
    /// submitted from other threads meanwhile takes the queue as always. Loop thread only; a nested call runs its
    /// `body` and leaves the draining to the outer one.
    func runInPlace(_ body: () -> Void) {
        checkIsolated()
        let outermost = state.withLock { state -> Bool in
            guard state.inPlace == nil else { return false }
            state.inPlace = []
            return true
        }
        body()
        guard outermost else { return }
        while true {
            let batch = state.withLock { state -> [Work] in
                let batch = state.inPlace ?? []
                state.inPlace = batch.isEmpty ? nil : []
                return batch
            }
            if batch.isEmpty { return }
            run(batch)
        }
    }

    private func submit(_ work: Work) {
        let fromLoop = isOnLoopThread
        let drainNow = state.withLock { state -> Bool in
            if fromLoop, state.inPlace != nil {
                state.inPlace!.append(work)
                return false
            }
            let wake = state.queue.append(work)
            switch state.phase {
            case .starting:
                return false
            case .running(let context):
                if wake { lws_cancel_service(context.pointer) }
                return false
            case .stopped:
                // While the loop thread still destroys the context it is the owner and drains last.
                return owner.load(ordering: .acquiring) == 0 && !state.lateDrainerClaimed
            }
        }
        if drainNow { drainAfterStop() }
    }

    /// Runs one batch on the loop thread; called from `LWS_CALLBACK_EVENT_WAIT_CANCELLED`.
    ///
    /// One batch per wake-up, so a flood of posts cannot starve socket I/O: if more arrived while the
    /// batch ran, the loop is woken again and handles sockets in between.
    func drain() {
        let batch = state.withLock { $0.queue.takeBatch() }
        run(batch)
        state.withLock { state in
            if state.queue.finishBatch(), case .running(let context) = state.phase {
                lws_cancel_service(context.pointer)
            }
        }
    }

    private func drainAfterStop() {
        // The runtime enqueues through an unowned reference, so nothing may keep this executor alive while a
        // late job runs here: the job can drop the last reference to its actor, whose deinit drops the
        // executor, and the next turn of the loop below would lock freed memory. The drain holds its own.
        let retained = Unmanaged.passRetained(self)
        defer { retained.release() }
        let claimed = state.withLock { state -> Bool in
            guard !state.lateDrainerClaimed else { return false }
            state.lateDrainerClaimed = true
            return true
        }
        guard claimed else { return }
        lateDrainer.store(Self.currentThread, ordering: .releasing)
        while true {
            let batch = state.withLock { state -> [Work] in
                let batch = state.queue.takeBatch()
                if batch.isEmpty {
                    state.lateDrainerClaimed = false
                    lateDrainer.store(0, ordering: .releasing)
                }
                return batch
            }
            if batch.isEmpty { return }
            run(batch)
        }
    }

    private func run(_ batch: [Work]) {
        // One enqueue serves both roles, so every job runs as both: a handler's nonisolated step then counts as
        // isolated to this loop (true: nothing else runs on it meanwhile), and its hop back to the engine is free.
        let serial = asUnownedSerialExecutor()
        let task = asUnownedTaskExecutor()
        for work in batch {
            switch work {
            case .job(let job): job.runSynchronously(isolatedTo: serial, taskExecutor: task)
            case .block(let block): block()
            }
        }
    }

    /// True on the thread that may touch this context's lws objects right now.
    var isOnLoopThread: Bool {
        let me = Self.currentThread
        return owner.load(ordering: .acquiring) == me || lateDrainer.load(ordering: .acquiring) == me
    }

    func isIsolatingCurrentContext() -> Bool? {
        isOnLoopThread
    }

    func checkIsolated() {
        precondition(isOnLoopThread, "HailNet: lws state touched off its loop thread")
    }
}
