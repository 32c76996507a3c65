import Dispatch
import Testing

@testable import HailThreads

@Suite("Locked, the iOS 17 Mutex")
struct LockedTests {
    @Test func incrementsFromManyThreadsAreNeverLost() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test func aThrowingBodyLeavesItsChangesAndReleasesTheLock() {
        struct Refused: Error {}
        let values = Locked([1, 2])
        #expect(throws: Refused.self) {
            try values.withLock { (state: inout [Int]) throws(Refused) in
                state.append(3)
                throw Refused()
            }
        }
        #expect(values.withLock { $0 } == [1, 2, 3])
    }
}
