import Foundation
import HailServer
import Testing

/// When the reconciler runs: every 5 s while passes succeed, every second while they fail, at once when nudged.
@Suite("Reconcile schedule")
struct ReconcileScheduleTests {
    static let t0 = Date(timeIntervalSince1970: 1_796_220_000)

    @Test func theFirstPassIsDueAtOnceThenEveryInterval() {
        var schedule = ReconcileSchedule(interval: 5, retryInterval: 1)
        #expect(schedule.isDue(at: Self.t0))
        #expect(schedule.finished(succeeded: true, at: Self.t0) == false)
        #expect(schedule.nextAt == Self.t0 + 5)
        #expect(!schedule.isDue(at: Self.t0 + 4.999))
        #expect(schedule.isDue(at: Self.t0 + 5))
    }

    @Test func failedPassesAreRetriedEverySecondAndTheFirstSuccessSaysTheBackendCameBack() {
        var schedule = ReconcileSchedule(interval: 5, retryInterval: 1)
        schedule.finished(succeeded: false, at: Self.t0)
        #expect(schedule.failing)
        #expect(schedule.nextAt == Self.t0 + 1)
        #expect(schedule.finished(succeeded: false, at: Self.t0 + 1) == false)
        #expect(schedule.nextAt == Self.t0 + 2)
        #expect(schedule.finished(succeeded: true, at: Self.t0 + 2) == true)
        #expect(!schedule.failing)
        #expect(schedule.nextAt == Self.t0 + 7)
        #expect(schedule.finished(succeeded: true, at: Self.t0 + 7) == false)
    }

    @Test func aNudgeMakesThePassDueAtOnce() {
        var schedule = ReconcileSchedule(interval: 5, retryInterval: 1)
        schedule.finished(succeeded: true, at: Self.t0)
        #expect(!schedule.isDue(at: Self.t0 + 1))
        schedule.nudge()
        #expect(schedule.nextAt == nil)
        #expect(schedule.isDue(at: Self.t0 + 1))
    }
}
