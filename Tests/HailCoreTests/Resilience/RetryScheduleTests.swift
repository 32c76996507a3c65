import HailCore
import Testing

struct RetryScheduleTests {
    @Test func riderRequestIsThreeAttemptsWaitingOneThenTwoSeconds() {
        let schedule = RetrySchedule.riderRequest
        #expect(schedule.maxAttempts == 3)
        #expect(schedule.delay(afterAttempt: 1) == 1)
        #expect(schedule.delay(afterAttempt: 2) == 2)
        #expect(schedule.delay(afterAttempt: 3) == nil)
    }

    @Test(arguments: [0, -1, 4, Int.max])
    func attemptsOutsideTheScheduleHaveNoDelay(attempt: Int) {
        #expect(RetrySchedule.riderRequest.delay(afterAttempt: attempt) == nil)
    }

    @Test func negativeAndNonFiniteWaitsReadAsZero() {
        #expect(RetrySchedule(waits: [-1, .nan, .infinity, 3]).waits == [0, 0, 0, 3])
    }
}
