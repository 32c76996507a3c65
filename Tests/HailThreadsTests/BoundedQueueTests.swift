import Dispatch
import Foundation
import HailThreads
import Synchronization
import Testing

@Suite("Bounded queues in front of backends")
struct BoundedQueueTests {
    @Test func aFullQueueRefusesTheNextItemAndKeepsWhatItHolds() {
        var queue = BoundedQueue<Int>(capacity: 3)
        let accepted = [queue.append(1), queue.append(2), queue.append(3), queue.append(4)]
        #expect(accepted == [true, true, true, false])
        #expect(queue.count == 3)
        let first = queue.takeOne()
        #expect(first == 1)
        // One taken, one place free again.
        let again = [queue.append(5), queue.append(6)]
        #expect(again == [true, false])
        var taken: [Int] = []
        while let item = queue.takeOne() { taken.append(item) }
        #expect(taken == [2, 3, 5])
        #expect(queue.isEmpty)
    }

    @Test func aPoolWhoseThreadsAreBusyRefusesTheJobPastItsCapacityAtOnce() async throws {
        struct Closed: Error {}
        let pool = ThreadPool(resources: [1], name: "test-pool", capacity: 2, closedError: Closed()) { _ in }
        defer { pool.close() }
        // The pool's one thread is held until the test lets it go: what comes next can only queue.
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        #expect(
            pool.submit { _ in
                holding.signal()
                release.wait()
            } == nil)
        await onItsOwnThread { holding.wait() }
        let ran = Mutex<[Int]>([])
        let drained = DispatchSemaphore(value: 0)
        #expect(pool.submit { _ in ran.withLock { $0.append(1) } } == nil)
        #expect(
            pool.submit { _ in
                ran.withLock { $0.append(2) }
                drained.signal()
            } == nil)
        let refusal = pool.submit { _ in ran.withLock { $0.append(3) } }
        #expect((refusal as? ThreadPoolError)?.code == .full)
        #expect("\(refusal!)" == "test-pool: 2 jobs already wait for its connections")
        await #expect(throws: ThreadPoolError.full("test-pool", capacity: 2)) { _ = try await pool.run { $0 } }
        release.signal()
        // Once the thread is free the queued jobs run, in order, and the refused one never does.
        await onItsOwnThread { drained.wait() }
        #expect(try await pool.run { $0 } == 1)
        #expect(ran.withLock { $0 } == [1, 2])
    }

    @Test func aCallerPastItsDeadlineGetsTimedOutAndAJobStillQueuedThenNeverRuns() async throws {
        struct Closed: Error {}
        let pool = ThreadPool(resources: [1], name: "test-pool", closedError: Closed()) { _ in }
        defer { pool.close() }
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        #expect(
            pool.submit { _ in
                holding.signal()
                release.wait()
            } == nil)
        await onItsOwnThread { holding.wait() }
        let ran = Mutex(false)
        // The thread is busy past the caller's deadline: the caller hears so, not the job's answer.
        await #expect(throws: ThreadPoolError.timedOut("test-pool", after: .milliseconds(50))) {
            _ = try await pool.run(within: .milliseconds(50)) { _ in ran.withLock { $0 = true } }
        }
        release.signal()
        #expect(try await pool.run { $0 } == 1)
        #expect(ran.withLock { $0 } == false)
    }
}

/// Runs a blocking wait off the cooperative pool.
private func onItsOwnThread(_ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        let thread = Thread {
            body()
            done.resume()
        }
        thread.start()
    }
}
