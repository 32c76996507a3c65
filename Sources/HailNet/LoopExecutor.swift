import CLibWebSockets
import Glibc
import Synchronization

/// The serial executor of one lws context: its jobs run on that context's loop thread.
///
/// Work from other threads is appended to a locked queue and the loop is woken with
/// `lws_cancel_service`; lws then delivers `LWS_CALLBACK_EVENT_WAIT_CANCELLED` on the loop thread,
/// where `drain()` runs one batch. Once the loop has stopped for good, whoever enqueues drains the
/// queue itself (one drainer at a time), so a continuation that arrives late still resumes.
final class LoopExecutor: SerialExecutor, Sendable {
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
        /// The context is being created on `owner` (a caller thread); nothing drains yet.
        case starting
        /// The loop thread services the context and drains when woken.
        case running(context: ContextHandle)
        /// The context is gone; enqueuers drain.
        case stopped
    }

    private struct State {
        var queue: [Work] = []
        var phase = Phase.starting
        /// The thread allowed to touch lws state: the creating thread, then the loop thread.
        var owner: pthread_t?
        /// A thread currently draining after the stop; also counts as isolated while it drains.
        var lateDrainer: pthread_t?
        /// A wake-up was requested and its drain has not yet emptied the queue.
        var wakePending = false
    }

    // The context pointer inside is only passed to lws_cancel_service, which is thread-safe,
    // and only while `phase` is `.running`, which the loop thread leaves under this same lock.
    private let state = Mutex(State())

    init() {}

    /// Marks the calling thread as the one creating the context.
    func beginCreation() {
        let me = pthread_self()
        state.withLock { $0.owner = me }
    }

    /// The creating thread is done with the context; until the loop thread starts nobody owns it.
    func endCreation() {
        state.withLock { $0.owner = nil }
    }

    /// Called on the loop thread once the context exists: from now on this thread owns lws.
    func loopStarted(context: OpaquePointer) {
        let me = pthread_self()
        state.withLock { state in
            state.owner = me
            state.phase = .running(context: ContextHandle(pointer: context))
            // Anything queued while starting needs a first drain.
            if !state.queue.isEmpty {
                state.wakePending = true
                lws_cancel_service(context)
            }
        }
    }

    /// Called on the loop thread after lws_service has returned and before the context is destroyed
    /// for the last time: no more wake-ups may reach the context.
    func loopStopping() {
        state.withLock { $0.phase = .stopped }
    }

    /// Called by the loop thread as its last act: runs whatever is left, then hands draining to enqueuers.
    func loopFinished() {
        state.withLock { $0.owner = nil }
        drainAfterStop()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    /// Runs `block` on the loop thread (or, after the stop, on the draining thread), in order with jobs.
    func post(_ block: @escaping @Sendable () -> Void) {
        submit(.block(block))
    }

    private func submit(_ work: Work) {
        let drainNow = state.withLock { state -> Bool in
            state.queue.append(work)
            switch state.phase {
            case .starting:
                return false
            case .running(let context):
                if !state.wakePending {
                    state.wakePending = true
                    lws_cancel_service(context.pointer)
                }
                return false
            case .stopped:
                // While the loop thread still destroys the context it is the owner and drains last.
                return state.owner == nil && state.lateDrainer == nil
            }
        }
        if drainNow { drainAfterStop() }
    }

    /// Runs one batch on the loop thread; called from `LWS_CALLBACK_EVENT_WAIT_CANCELLED`.
    ///
    /// One batch per wake-up, so a flood of posts cannot starve socket I/O: if more arrived while the
    /// batch ran, the loop is woken again and handles sockets in between.
    func drain() {
        let batch = state.withLock { state -> [Work] in
            let batch = state.queue
            state.queue = []
            return batch
        }
        run(batch)
        state.withLock { state in
            if state.queue.isEmpty {
                state.wakePending = false
            } else if case .running(let context) = state.phase {
                lws_cancel_service(context.pointer)
            }
        }
    }

    private func drainAfterStop() {
        let me = pthread_self()
        let claimed = state.withLock { state -> Bool in
            guard state.lateDrainer == nil else { return false }
            state.lateDrainer = me
            return true
        }
        guard claimed else { return }
        while true {
            let batch = state.withLock { state -> [Work] in
                let batch = state.queue
                state.queue = []
                if batch.isEmpty { state.lateDrainer = nil }
                return batch
            }
            if batch.isEmpty { return }
            run(batch)
        }
    }

    private func run(_ batch: [Work]) {
        let unowned = asUnownedSerialExecutor()
        for work in batch {
            switch work {
            case .job(let job): job.runSynchronously(on: unowned)
            case .block(let block): block()
            }
        }
    }

    /// True on the thread that may touch this context's lws objects right now.
    var isOnLoopThread: Bool {
        let me = pthread_self()
        return state.withLock { state in
            if let drainer = state.lateDrainer, pthread_equal(drainer, me) != 0 { return true }
            if let owner = state.owner, pthread_equal(owner, me) != 0 { return true }
            return false
        }
    }

    func isIsolatingCurrentContext() -> Bool? {
        isOnLoopThread
    }

    func checkIsolated() {
        precondition(isOnLoopThread, "HailNet: lws state touched off its loop thread")
    }
}
