import Testing

@testable import HailThreads

/// The deadlines of request races: due at their instant, gone once removed, each fired once.
@Suite struct DeadlineBookTests {
    let start = ContinuousClock.now

    @Test func aDeadlineIsDueAtItsInstantAndCollectedOnce() {
        var book = DeadlineBook<String>()
        _ = book.add(due: start + .seconds(4), "late")
        _ = book.add(due: start + .seconds(2), "early")
        #expect(book.collectDue(now: start + .milliseconds(1_999)) == [])
        #expect(book.collectDue(now: start + .seconds(2)) == ["early"])
        #expect(book.collectDue(now: start + .seconds(3)) == [])
        #expect(book.count == 1)
        #expect(book.collectDue(now: start + .seconds(10)) == ["late"])
        #expect(book.count == 0)
    }

    @Test func aRemovedDeadlineNeverFires() {
        var book = DeadlineBook<String>()
        let answered = book.add(due: start + .seconds(4), "answered in time")
        _ = book.add(due: start + .seconds(4), "still waiting")
        book.remove(answered)
        #expect(book.count == 1)
        #expect(book.collectDue(now: start + .seconds(5)) == ["still waiting"])
        // Removing one that already fired changes nothing.
        book.remove(answered)
        #expect(book.count == 0)
    }

    @Test func deadlinesDueTogetherFireEarliestFirstThenInTheOrderAdded() {
        var book = DeadlineBook<String>()
        _ = book.add(due: start + .seconds(3), "b")
        _ = book.add(due: start + .seconds(1), "a")
        _ = book.add(due: start + .seconds(3), "c")
        #expect(book.collectDue(now: start + .seconds(3)) == ["a", "b", "c"])
    }
}
