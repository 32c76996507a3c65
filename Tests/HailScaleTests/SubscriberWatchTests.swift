import Testing

@testable import HailScale

@Suite("A silent Redis is noticed by the subscriber")
struct SubscriberWatchTests {
    @Test func silencePingsAndAnUnansweredPingFailsWithinQuietPlusDeadline() {
        var watch = SubscriberWatch(quiet: .seconds(1), deadline: .seconds(2), now: .zero)
        #expect(watch.next(at: .milliseconds(400)) == .wait(.milliseconds(600)))
        #expect(watch.next(at: .seconds(1)) == .ping)
        // The PING is out: nothing more is sent, the thread waits for its answer until the deadline.
        #expect(watch.next(at: .milliseconds(1500)) == .wait(.milliseconds(1500)))
        #expect(watch.next(at: .milliseconds(2999)) == .wait(.milliseconds(1)))
        #expect(watch.next(at: .seconds(3)) == .fail)
    }

    @Test func anyReplyCountsAsAnAnswerAndStartsTheQuietAgain() {
        var watch = SubscriberWatch(quiet: .seconds(1), deadline: .seconds(2), now: .zero)
        #expect(watch.next(at: .seconds(1)) == .ping)
        watch.heard(at: .milliseconds(1200))
        #expect(watch.next(at: .milliseconds(1300)) == .wait(.milliseconds(900)))
        // Messages keep arriving: no PING is needed while they do.
        watch.heard(at: .milliseconds(2100))
        #expect(watch.next(at: .milliseconds(3000)) == .wait(.milliseconds(100)))
        #expect(watch.next(at: .milliseconds(3100)) == .ping)
        #expect(watch.next(at: .milliseconds(5100)) == .fail)
    }
}
