import Foundation
import HailCore
import HailServer
import Synchronization
import Testing

@Suite("The history append queue's read barrier, without a database")
struct HistoryAppendQueueTests {
    static func point(_ index: Int) -> HistoryPoint {
        HistoryPoint(
            coordinate: Coordinate(lat: 43.73, lng: 7.42), t: Date(timeIntervalSince1970: Double(index)),
            receivedAt: Date(timeIntervalSince1970: Double(index)), backlog: false)
    }

    /// Counts how often a barrier's body ran.
    final class Calls: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func record() { count.withLock { $0 += 1 } }
    }

    @Test func aReaderWaitsForTheAppendsBeforeItAndNotForThoseAfter() {
        let queue = HistoryAppendQueue()
        #expect(queue.enqueue(tripID: "trip-1", points: [Self.point(1)]) { _ in })
        #expect(!queue.enqueue(tripID: "trip-1", points: [Self.point(2)]) { _ in })
        let calls = Calls()
        queue.whenDone { calls.record() }
        // Queued after the reader asked: it does not wait for this one.
        _ = queue.enqueue(tripID: "trip-1", points: [Self.point(3)]) { _ in }
        queue.complete(queue.takeGroup(limit: 1), committed: true, failures: [:])
        #expect(calls.value == 0)
        queue.complete(queue.takeGroup(limit: 1), committed: true, failures: [:])
        #expect(calls.value == 1)
        queue.complete(queue.takeGroup(), committed: true, failures: [:])
        #expect(calls.value == 1)
    }

    @Test func withNothingPendingTheReaderGoesOnAtOnce() {
        let queue = HistoryAppendQueue()
        let calls = Calls()
        queue.whenDone { calls.record() }
        #expect(calls.value == 1)
        _ = queue.enqueue(tripID: "trip-1", points: [Self.point(1)]) { _ in }
        queue.complete(queue.takeGroup(), committed: true, failures: [:])
        queue.whenDone { calls.record() }
        #expect(calls.value == 2)
    }

    @Test func aFailedGroupAndAWriterGoneReleaseTheReaderToo() {
        struct Gone: Error {}
        let queue = HistoryAppendQueue()
        _ = queue.enqueue(tripID: "trip-1", points: [Self.point(1)]) { _ in }
        _ = queue.enqueue(tripID: "trip-1", points: [Self.point(2)]) { _ in }
        let calls = Calls()
        queue.whenDone { calls.record() }
        queue.complete(queue.takeGroup(limit: 1), committed: false, failures: [0: Gone()])
        #expect(calls.value == 0)
        queue.failPending(Gone())
        #expect(calls.value == 1)
    }
}
