import Dispatch
import Foundation
import HailThreads
import Synchronization
import Testing

@Suite("Deadlines fire on a thread of their own")
struct DeadlineTimerTests {
    @Test func actionsRunInTheOrderOfTheirDeadlinesWhateverTheOrderTheyWereSet() {
        let timer = DeadlineTimer(name: "hail-deadlines-test", resolution: .milliseconds(10))
        let ran = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        // Set latest first: each new one is the earliest, and must wake the thread from its longer wait.
        for (index, milliseconds) in [(3, 90), (2, 60), (1, 30), (0, 0)] {
            timer.after(.milliseconds(milliseconds)) {
                ran.withLock { $0.append(index) }
                done.signal()
            }
        }
        for _ in 0..<4 { done.wait() }
        #expect(ran.withLock { $0 } == [0, 1, 2, 3])
        #expect(timer.pending == 0)
    }

    /// What delayed the 4 s request deadline to 5.4 s under load: `DispatchQueue.global().asyncAfter` runs its
    /// block on the pool Swift's tasks of default priority run on, so busy tasks hold a due deadline back. Here
    /// every thread of that pool spins until the deadline has fired (or, as a guard, for 10 s): the deadline
    /// must fire while they still spin.
    @Test func aDeadlineFiresWhileEveryThreadOfTheSharedPoolIsBusy() {
        let timer = DeadlineTimer(name: "hail-deadlines-busy-test", resolution: .milliseconds(10))
        let spinners = ProcessInfo.processInfo.activeProcessorCount * 2
        let released = Atomic<Bool>(false)
        let gaveUp = Atomic<Int>(0)
        let started = DispatchSemaphore(value: 0)
        for _ in 0..<spinners {
            DispatchQueue.global().async {
                started.signal()
                let guardEnd = ContinuousClock.now + .seconds(10)
                while !released.load(ordering: .acquiring) {
                    if ContinuousClock.now > guardEnd {
                        gaveUp.add(1, ordering: .relaxed)
                        return
                    }
                }
            }
        }
        // Twice as many as the pool has threads: once one spins, the pool has taken all it will take.
        started.wait()
        let firedWhileSpinning = Mutex<Bool?>(nil)
        let fired = DispatchSemaphore(value: 0)
        timer.after(.milliseconds(20)) {
            firedWhileSpinning.withLock { $0 = gaveUp.load(ordering: .relaxed) == 0 }
            fired.signal()
        }
        fired.wait()
        released.store(true, ordering: .releasing)
        #expect(firedWhileSpinning.withLock { $0 } == true)
    }
}
