import Dispatch
import Synchronization
import Testing

@testable import HailThreads

/// An actor whose every turn runs on one `ThreadExecutor`.
private actor OnItsThread {
    nonisolated let executor: ThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private(set) var seen: [Int] = []

    init(executor: ThreadExecutor) { self.executor = executor }

    func record(_ value: Int) -> Bool {
        seen.append(value)
        return executor.isCurrentThread
    }
}

@Suite("A thread executor and a thread pool")
struct ThreadExecutorTests {
    @Test func anActorOnTheExecutorRunsEveryTurnOnItsThreadInOrder() async {
        let executor = ThreadExecutor(name: "test-executor")
        let actor = OnItsThread(executor: executor)
        #expect(executor.isCurrentThread == false)
        for value in 0..<100 { #expect(await actor.record(value)) }
        #expect(await actor.seen == Array(0..<100))
        executor.stop()
    }

    @Test func blocksPostedFromManyThreadsAllRunOnTheOneThread() async {
        let executor = ThreadExecutor(name: "test-executor")
        let ran = Mutex<(count: Int, offThread: Int)>((0, 0))
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.concurrentPerform(iterations: 1000) { _ in
                executor.execute {
                    let count = ran.withLock { ran -> Int in
                        ran.count += 1
                        if !executor.isCurrentThread { ran.offThread += 1 }
                        return ran.count
                    }
                    if count == 1000 { done.resume() }
                }
            }
        }
        #expect(ran.withLock { $0.count } == 1000)
        #expect(ran.withLock { $0.offThread } == 0)
        executor.stop()
    }

    @Test func stoppingLetsWhatIsQueuedRunFirst() async {
        let executor = ThreadExecutor(name: "test-executor")
        let order = Mutex<[Int]>([])
        let gate = DispatchSemaphore(value: 0)
        // The first block holds the thread until everything else is queued and the stop asked for.
        executor.execute { gate.wait() }
        for value in 1...3 { executor.execute { order.withLock { $0.append(value) } } }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            executor.execute { done.resume() }
            executor.stop()
            gate.signal()
        }
        #expect(order.withLock { $0 } == [1, 2, 3])
    }

    @Test func aPoolRunsJobsOnItsResourcesThreadsAndReleasesEachOnceAtTheClose() async throws {
        struct Closed: Error {}
        let released = Mutex<(resources: [Int], waiter: CheckedContinuation<Void, Never>?)>(([], nil))
        let pool = ThreadPool(resources: [10, 20], name: "test-pool", closedError: Closed()) { resource in
            let waiter = released.withLock { released -> CheckedContinuation<Void, Never>? in
                released.resources.append(resource)
                return released.resources.count == 2 ? released.waiter.take() : nil
            }
            waiter?.resume()
        }
        var seen = Set<Int>()
        for _ in 0..<50 { seen.insert(try await pool.run { resource in resource }) }
        #expect(seen.isSubset(of: [10, 20]))
        // Each thread releases its own resource once the queue is empty after the close.
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            released.withLock { $0.waiter = waiter }
            pool.close()
        }
        #expect(released.withLock { $0.resources.sorted() } == [10, 20])
        #expect(pool.submit { _ in } is Closed)
        await #expect(throws: Closed.self) { _ = try await pool.run { $0 } }
    }
}
