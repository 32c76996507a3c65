import HailServer
import Testing

@Suite("The reconciler's driver sweep: bounded passes that cover everyone")
struct DriverSweepTests {
    @Test func eachPassTakesAtMostTheLimitAndACycleCoversEveryDriverOnce() {
        var sweep = DriverSweep(limit: 2)
        let known = ["d-1", "d-2", "d-3", "d-4", "d-5"]
        #expect(sweep.next(of: known) == ["d-1", "d-2"])
        #expect(sweep.next(of: known) == ["d-3", "d-4"])
        #expect(sweep.next(of: known) == ["d-5"])
        // The cycle starts again.
        #expect(sweep.next(of: known) == ["d-1", "d-2"])
    }

    @Test func driversAddedOrGoneMidCycleAreTakenWhenTheSweepReachesThemOrSimplyMissing() {
        var sweep = DriverSweep(limit: 2)
        #expect(sweep.next(of: ["d-1", "d-3", "d-5"]) == ["d-1", "d-3"])
        // d-3 left, d-4 arrived after the cursor and d-2 before it: d-2 waits for the next cycle.
        #expect(sweep.next(of: ["d-1", "d-2", "d-4", "d-5"]) == ["d-4", "d-5"])
        #expect(sweep.next(of: ["d-1", "d-2", "d-4", "d-5"]) == ["d-1", "d-2"])
    }

    @Test func noDriversTakesNothingAndALimitBelowOneTakesOne() {
        var empty = DriverSweep(limit: 3)
        #expect(empty.next(of: []) == [])
        var single = DriverSweep(limit: 0)
        #expect(single.next(of: ["d-1", "d-2"]) == ["d-1"])
        #expect(single.next(of: ["d-1", "d-2"]) == ["d-2"])
        #expect(single.next(of: ["d-1", "d-2"]) == ["d-1"])
    }
}
