import Foundation
import Synchronization

/// The one thread every child is forked from. Linux sends a child its parent-death signal when the thread that
/// forked it exits, so that thread must live as long as the process: this one waits for work forever.
enum SpawnerThread {
    private static let jobs = Mutex([@Sendable () -> Void]())
    private static let posted = DispatchSemaphore(value: 0)
    private static let started: Void = {
        let thread = Thread {
            while true {
                posted.wait()
                let job = jobs.withLock { $0.removeFirst() }
                job()
            }
        }
        thread.name = "hail-spawner"
        thread.start()
    }()

    /// Runs `body` on the spawner thread and returns its result; the caller blocks for the length of a fork.
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        _ = started
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        jobs.withLock {
            $0.append {
                result.withLock { $0 = body() }
                done.signal()
            }
        }
        posted.signal()
        done.wait()
        return result.withLock { $0 }!
    }
}
