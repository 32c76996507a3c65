import Testing

@testable import HailServer

/// Which opening streams' setups share a batch: one alone goes at once, a storm's share round trips.
@Suite struct SetUpBatchesTests {
    @Test func aStreamOpeningAloneIsSetUpAtOnceInABatchOfItsOwn() {
        var batches = SetUpBatches<Int>(maxBatch: 500, maxRunning: 2)
        #expect(batches.arrived(1) == .start([1]))
        #expect(batches.finished() == .wait)
        #expect(batches.arrived(2) == .start([2]))
        #expect(batches.running == 1)
    }

    @Test func whileTheBatchesRunTheSetupsWaitAndTheNextBatchTakesThemAll() {
        var batches = SetUpBatches<Int>(maxBatch: 500, maxRunning: 2)
        #expect(batches.arrived(1) == .start([1]))
        #expect(batches.arrived(2) == .start([2]))
        for ticket in 3...10 { #expect(batches.arrived(ticket) == .wait) }
        #expect(batches.waiting == Array(3...10))
        #expect(batches.finished() == .start(Array(3...10)))
        #expect(batches.finished() == .wait)
        #expect(batches.finished() == .wait)
        #expect(batches.running == 0)
        #expect(batches.waiting.isEmpty)
    }

    /// 8,000 streams of a crashed node arrive while two batches run: they go 500 at a time, oldest first, two
    /// batches at work at any moment, in 16 batches besides the first two.
    @Test func aStormIsSetUpInBatchesOfAtMostMaxBatchInArrivalOrder() {
        var batches = SetUpBatches<Int>(maxBatch: 500, maxRunning: 2)
        #expect(batches.arrived(0) == .start([0]))
        #expect(batches.arrived(1) == .start([1]))
        for ticket in 2..<8_002 { #expect(batches.arrived(ticket) == .wait) }
        var started: [[Int]] = []
        while batches.running > 0 {
            if case .start(let batch) = batches.finished() { started.append(batch) }
            #expect(batches.running <= 2)
        }
        #expect(started.count == 16)
        #expect(started.allSatisfy { $0.count == 500 })
        #expect(started.flatMap { $0 } == Array(2..<8_002))
    }

    @Test func limitsBelowOneCountAsOne() {
        var batches = SetUpBatches<String>(maxBatch: 0, maxRunning: -3)
        #expect(batches.arrived("a") == .start(["a"]))
        #expect(batches.arrived("b") == .wait)
        #expect(batches.arrived("c") == .wait)
        #expect(batches.finished() == .start(["b"]))
        #expect(batches.finished() == .start(["c"]))
        #expect(batches.finished() == .wait)
    }

    @Test func aFinishWithNothingRunningChangesNothing() {
        var batches = SetUpBatches<Int>(maxBatch: 3, maxRunning: 1)
        #expect(batches.finished() == .wait)
        #expect(batches.running == 0)
        #expect(batches.arrived(1) == .start([1]))
    }
}
