import Testing

@testable import HailThreads

/// The queue every thread of Hail's own drains, driven by hand: no threads, only the answers its owner acts on.
@Suite("A batch queue and its wake-ups")
struct BatchQueueTests {
    @Test func onlyTheFirstAppendOfABatchAsksForAWakeUp() {
        var queue = BatchQueue<Int>()
        #expect(queue.append(1) == true)
        #expect(queue.append(2) == false)
        #expect(queue.append(3) == false)
        #expect(queue.count == 3)
        #expect(queue.takeBatch() == [1, 2, 3])
        #expect(queue.isEmpty)
    }

    @Test func workArrivingWhileABatchRunsIsTakenInTheSameWakeUp() {
        var queue = BatchQueue<Int>()
        _ = queue.append(1)
        #expect(queue.takeBatch() == [1])
        // Appended while the batch ran: the consumer is awake, so no second wake-up is asked for...
        #expect(queue.append(2) == false)
        // ...and finishing the batch tells it to go round again.
        #expect(queue.finishBatch() == true)
        #expect(queue.takeBatch() == [2])
        #expect(queue.finishBatch() == false)
        // Empty and finished: the next append wakes the consumer again.
        #expect(queue.append(3) == true)
    }

    @Test func aPoolTakesOnePieceAtATimeInOrderAndTheStorageDoesNotGrowForEver() {
        var queue = BatchQueue<Int>()
        for value in 0..<200 { _ = queue.append(value) }
        var taken: [Int] = []
        for _ in 0..<150 { taken.append(queue.takeOne()!) }
        #expect(taken == Array(0..<150))
        #expect(queue.count == 50)
        for value in 200..<210 { _ = queue.append(value) }
        #expect(queue.takeBatch() == Array(150..<210))
        #expect(queue.takeOne() == nil)
    }

    @Test func resettingTheWakeMakesTheNextAppendAskAgain() {
        var queue = BatchQueue<Int>()
        #expect(queue.append(1) == true)
        queue.resetWake()
        #expect(queue.append(2) == true)
    }
}
