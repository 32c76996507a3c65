import Dispatch
import Foundation

/// A serial executor on a thread of its own: jobs and blocks run there in the order given, taken a batch at a
/// time, the thread woken once per batch.
///
/// For work that blocks: SQLite's commits wait on the disk (an fsync each under full durability), and run on
/// Swift's cooperative pool, which has one thread per core, a few slow ones would stall every other task in the
/// process, network handlers included. An actor whose `unownedExecutor` is this one runs all its code here. A
/// plain thread rather than a Dispatch queue, because one fixed thread makes "which thread ran this" a checkable
/// fact (`isCurrentThread`).
public final class ThreadExecutor: SerialExecutor, Sendable {
    private enum Work: Sendable {
        case job(UnownedJob)
        case block(@Sendable () -> Void)
    }

    private struct State {
        var queue = BatchQueue<Work>()
        var stopping = false
        var finished = false
    }

    private let state = Locked(State())
    // One signal per wake-up the queue asks for, and one for the stop.
    private let wakeUp = DispatchSemaphore(value: 0)
    // Set once, by the thread itself, before `init` returns.
    private let thread = Locked<UInt>(0)

    /// Starts the thread, named `name`; it runs until `stop()` and then exits once its queue is empty.
    public init(name: String) {
        let started = DispatchSemaphore(value: 0)
        // The thread holds the executor until it exits; `stop()` is what ends it.
        let worker = Thread { [self] in
            thread.withLock { $0 = ThreadIdentity.current }
            started.signal()
            runLoop()
        }
        worker.name = name
        worker.start()
        started.wait()
    }

    /// Queues a Swift job (an actor's turn).
    public func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    /// This executor, for an actor's `unownedExecutor`.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Stops the process when called off this executor's thread.
    public func checkIsolated() {
        precondition(isCurrentThread, "expected to run on the thread of this executor")
    }

    /// Runs `block` on the thread, in order with jobs: for work that is not a task (closing a handle from a deinit).
    public func execute(_ block: @escaping @Sendable () -> Void) {
        submit(.block(block))
    }

    /// Lets the thread exit once it has run everything already queued; work queued after that is refused.
    public func stop() {
        state.withLock { $0.stopping = true }
        wakeUp.signal()
    }

    /// True when called on this executor's thread.
    public var isCurrentThread: Bool { thread.withLock { $0 } == ThreadIdentity.current }

    private func submit(_ work: Work) {
        let wake = state.withLock { state -> Bool in
            precondition(!state.finished, "work was sent to a thread executor that has already exited")
            return state.queue.append(work)
        }
        if wake { wakeUp.signal() }
    }

    /// The thread's whole life: wait for a wake-up, then take everything queued in one go and run it, going round
    /// while more came meanwhile; after `stop()`, exit once the queue is empty.
    private func runLoop() {
        let unowned = asUnownedSerialExecutor()
        while true {
            wakeUp.wait()
            while true {
                for work in state.withLock({ $0.queue.takeBatch() }) {
                    switch work {
                    case .job(let job): job.runSynchronously(on: unowned)
                    case .block(let block): block()
                    }
                }
                let (more, exit) = state.withLock { state -> (Bool, Bool) in
                    if state.queue.finishBatch() { return (true, false) }
                    state.finished = state.stopping
                    return (false, state.stopping)
                }
                if exit { return }
                if !more { break }
            }
        }
    }
}
