import Foundation
import HailClient
import Testing

/// `Retry-After` as the app's transport reads it, and the hold it puts on the app's next requests.
struct RetryAfterHoldTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z

    @Test func readsDelaySecondsAndHTTPDates() {
        #expect(RetryAfterHeader.seconds("2", now: now) == 2)
        #expect(RetryAfterHeader.seconds(" 120 ", now: now) == 120)
        #expect(RetryAfterHeader.seconds("Fri, 15 Jan 2027 08:00:30 GMT", now: now) == 30)
        // A date already past asks for no wait.
        #expect(RetryAfterHeader.seconds("Fri, 15 Jan 2027 07:59:00 GMT", now: now) == 0)
    }

    @Test(arguments: [nil, "", "soon", "-3", "1.5", "٣"])
    func ignoresWhatItCannotRead(value: String?) {
        #expect(RetryAfterHeader.seconds(value, now: now) == nil)
    }

    @Test func aHoldLastsWhatTheServerAskedAndNeverShortens() {
        var hold = ServerHold()
        #expect(hold.remaining(now: now) == nil)
        hold.told(retryAfter: 2, now: now)
        #expect(hold.remaining(now: now.addingTimeInterval(0.5)) == 1.5)
        #expect(hold.remaining(now: now.addingTimeInterval(2)) == nil)
        hold.told(retryAfter: 10, now: now)
        hold.told(retryAfter: 1, now: now.addingTimeInterval(1))
        #expect(hold.until == now.addingTimeInterval(10))
    }

    @Test func aHoldIsCappedAtThirtySeconds() {
        var hold = ServerHold()
        hold.told(retryAfter: 3600, now: now)
        #expect(hold.until == now.addingTimeInterval(30))
        hold.told(retryAfter: 0, now: now.addingTimeInterval(40))
        #expect(hold.remaining(now: now.addingTimeInterval(40)) == nil)
    }
}
