import Dispatch
import Synchronization

/// Runs `work` on the cooperative pool and waits for its result on the calling thread.
///
/// libFuzzer calls its entry point synchronously on the main thread, which is not one of the pool's
/// threads, so blocking it cannot starve the tasks it waits for.
public func runBlocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let outcome = BlockingOutcome<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        let result = await work()
        outcome.value.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return outcome.value.withLock { $0! }
}

/// The result slot `runBlocking` hands between the task and the waiting thread.
final class BlockingOutcome<T: Sendable>: Sendable {
    let value = Mutex<T?>(nil)
}
