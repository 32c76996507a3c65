import Foundation
import HailServer
import Testing

/// The drain's decisions, event by event, on dates given by hand.
@Suite struct DrainMachineTests {
    private static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    private let settings = DrainSettings(grace: 5, spread: 10, bound: 30)

    private func at(_ seconds: TimeInterval) -> Date { Self.t0.addingTimeInterval(seconds) }

    @Test func theSignalMakesTheNodeUnreadyAtOnceAndItKeepsAcceptingThroughTheGrace() {
        var machine = DrainMachine(settings: settings, seed: 1)
        #expect(machine.handle(.tick(at: at(-1), streams: 3, requests: 1)) == [])
        #expect(machine.handle(.terminate(at: at(0))) == [.markUnready])
        #expect(machine.handle(.tick(at: at(4.9), streams: 3, requests: 1)) == [])
        #expect(machine.phase == .announcing)
        #expect(machine.handle(.tick(at: at(5), streams: 3, requests: 1)) == [.stopAccepting])
        #expect(machine.phase == .listing)
    }

    @Test func noGraceStopsAcceptingWithTheSignal() {
        var machine = DrainMachine(settings: DrainSettings(grace: 0, spread: 1, bound: 5), seed: 1)
        #expect(machine.handle(.terminate(at: at(0))) == [.markUnready, .stopAccepting])
    }

    @Test func eachStreamIsClosedOnceAtItsOwnMomentSpreadEvenlyOverTheWindow() {
        var machine = DrainMachine(settings: settings, seed: 7)
        _ = machine.handle(.terminate(at: at(0)))
        _ = machine.handle(.tick(at: at(5), streams: 100, requests: 0))
        let ids = (1...100).map(UInt64.init)
        #expect(machine.handle(.streamsListed(DrainStreams(drivers: ids), at: at(5))) == [])
        let moments = machine.pendingCloses
        #expect(moments.map(\.id).sorted() == ids)
        #expect(moments.map(\.id) != ids, "the order is shuffled")
        // Stratified: the i-th close lies in the i-th tenth of a second of the 10 s window, so every second of the
        // window has exactly 10 of them.
        for (index, close) in moments.enumerated() {
            let offset = close.at.timeIntervalSince(at(5))
            #expect(offset >= Double(index) * 0.1 && offset < Double(index + 1) * 0.1)
        }
        var closed: [UInt64] = []
        for tenth in 51...150 {
            for action in machine.handle(.tick(at: at(Double(tenth) / 10), streams: 100, requests: 0)) {
                if case .close(let batch) = action { closed += batch }
            }
            if tenth % 10 == 0 { #expect(closed.count == (tenth - 50)) }
        }
        #expect(closed.sorted() == ids)
        #expect(Set(closed).count == 100)
    }

    @Test func theSameSeedGivesTheSameScheduleAndAnotherSeedAnother() {
        func schedule(_ seed: UInt64) -> [UInt64] {
            var machine = DrainMachine(settings: settings, seed: seed)
            _ = machine.handle(.terminate(at: at(0)))
            _ = machine.handle(.tick(at: at(5), streams: 20, requests: 0))
            _ = machine.handle(.streamsListed(DrainStreams(drivers: (1...20).map(UInt64.init)), at: at(5)))
            return machine.pendingCloses.map(\.id)
        }
        #expect(schedule(3) == schedule(3))
        #expect(schedule(3) != schedule(4))
    }

    @Test func afterTheWindowTheRestIsClosedAndTheFlushWaitsForTheLastStreamAndRequest() {
        var machine = DrainMachine(settings: settings, seed: 1)
        _ = machine.handle(.terminate(at: at(0)))
        _ = machine.handle(.tick(at: at(5), streams: 1, requests: 0))
        #expect(machine.handle(.streamsListed(DrainStreams(drivers: [42]), at: at(5))) == [])
        let due = machine.pendingCloses[0].at
        #expect(machine.handle(.tick(at: due, streams: 1, requests: 2)) == [.close([42])])
        #expect(machine.handle(.tick(at: at(14.9), streams: 1, requests: 2)) == [])
        // The window is over: a stream upgraded after the list (or slow to close) is told to go too.
        #expect(machine.handle(.tick(at: at(15), streams: 1, requests: 2)) == [.closeRemaining])
        #expect(machine.phase == .finishing)
        #expect(machine.handle(.tick(at: at(16), streams: 0, requests: 1)) == [])
        #expect(machine.handle(.tick(at: at(17), streams: 0, requests: 0)) == [.flush])
        #expect(machine.phase == .flushing)
        #expect(machine.handle(.tick(at: at(18), streams: 0, requests: 0)) == [])
        #expect(machine.handle(.flushed(at: at(18.5))) == [.exit(.drained)])
        #expect(machine.phase == .ended(.drained))
        #expect(DrainOutcome.drained.exitStatus == 0)
    }

    @Test func aNodeWithNothingOpenFlushesAsTheWindowEnds() {
        var machine = DrainMachine(settings: DrainSettings(grace: 1, spread: 2, bound: 10), seed: 1)
        _ = machine.handle(.terminate(at: at(0)))
        #expect(machine.handle(.tick(at: at(1), streams: 0, requests: 0)) == [.stopAccepting])
        #expect(machine.handle(.streamsListed(DrainStreams(), at: at(1))) == [])
        #expect(machine.handle(.tick(at: at(2.9), streams: 0, requests: 0)) == [])
        #expect(machine.handle(.tick(at: at(3), streams: 0, requests: 0)) == [.closeRemaining, .flush])
    }

    @Test func theBoundEndsTheDrainWhateverIsStillOpen() {
        var machine = DrainMachine(settings: settings, seed: 1)
        _ = machine.handle(.terminate(at: at(0)))
        _ = machine.handle(.tick(at: at(5), streams: 1, requests: 0))
        _ = machine.handle(.streamsListed(DrainStreams(drivers: [1]), at: at(5)))
        _ = machine.handle(.tick(at: at(15), streams: 1, requests: 0))
        #expect(machine.handle(.tick(at: at(29.9), streams: 1, requests: 0)) == [])
        #expect(machine.handle(.tick(at: at(30), streams: 1, requests: 0)) == [.exit(.boundReached)])
        #expect(machine.handle(.tick(at: at(31), streams: 0, requests: 0)) == [])
        #expect(DrainOutcome.boundReached.exitStatus == 0)
    }

    @Test func aFlushThatOutlastsTheBoundStillEndsAtTheBound() {
        var machine = DrainMachine(settings: DrainSettings(grace: 0, spread: 0, bound: 3), seed: 1)
        _ = machine.handle(.terminate(at: at(0)))
        _ = machine.handle(.streamsListed(DrainStreams(), at: at(0)))
        #expect(machine.handle(.tick(at: at(0.1), streams: 0, requests: 0)) == [.closeRemaining, .flush])
        #expect(machine.handle(.tick(at: at(3), streams: 0, requests: 0)) == [.exit(.boundReached)])
        #expect(machine.handle(.flushed(at: at(3.1))) == [])
    }

    @Test func aSecondSignalForcesTheExitAtAnyStep() {
        for steps in 0...3 {
            var machine = DrainMachine(settings: settings, seed: 1)
            _ = machine.handle(.terminate(at: at(0)))
            if steps >= 1 { _ = machine.handle(.tick(at: at(5), streams: 1, requests: 0)) }
            if steps >= 2 { _ = machine.handle(.streamsListed(DrainStreams(drivers: [1]), at: at(5))) }
            if steps >= 3 { _ = machine.handle(.tick(at: at(15), streams: 0, requests: 0)) }
            #expect(machine.handle(.terminate(at: at(16))) == [.exit(.forced)])
            #expect(machine.handle(.terminate(at: at(17))) == [])
        }
        #expect(DrainOutcome.forced.exitStatus == 1)
    }

    /// Every close `machine` makes from `from` to `to` seconds, ticking each tenth, with the second it came in.
    private func closes(_ machine: inout DrainMachine, from: Int, to: Int, streams: Int) -> [(UInt64, Double)] {
        var closed: [(UInt64, Double)] = []
        for tenth in from...to {
            for action in machine.handle(.tick(at: at(Double(tenth) / 10), streams: streams, requests: 0)) {
                if case .close(let batch) = action { closed += batch.map { ($0, Double(tenth) / 10) } }
            }
        }
        return closed
    }

    @Test func theDriversMoveFirstAndTheWatchersOnlyOnceTheHandoverIsOver() {
        var machine = DrainMachine(settings: DrainSettings(grace: 1, spread: 4, handover: 2, bound: 30), seed: 9)
        _ = machine.handle(.terminate(at: at(0)))
        #expect(machine.handle(.tick(at: at(1), streams: 16, requests: 0)) == [.stopAccepting])
        let drivers = (1...12).map(UInt64.init)
        let watchers = (101...104).map(UInt64.init)
        #expect(machine.handle(.streamsListed(DrainStreams(drivers: drivers, watchers: watchers), at: at(1))) == [])
        // 16 streams within the 4 s floor, shared 12 : 4: the drivers over [1, 4), 2 s of handover, the watchers
        // over [6, 7).
        #expect(
            machine.plan
                == DrainPlan(start: at(1), driversWindow: 3, handover: 2, watchersWindow: 1))
        let closed = closes(&machine, from: 11, to: 80, streams: 16)
        #expect(closed.prefix(12).map(\.0).sorted() == drivers)
        #expect(closed.dropFirst(12).map(\.0).sorted() == watchers)
        #expect(closed.prefix(12).allSatisfy { $0.1 > 1 && $0.1 <= 4 })
        #expect(closed.dropFirst(12).allSatisfy { $0.1 > 6 && $0.1 <= 7 })
        // Four of the drivers in each second of theirs, four watchers in their one second.
        #expect(
            (2...4).map { second in closed.prefix(12).filter { Int($0.1.rounded(.up)) == second }.count } == [4, 4, 4])
    }

    /// Drivers 1 and 2 serve trips a and b here; riders 101 and 102 watch them, 103 watches a trip whose driver
    /// streams to another node. Listed at 1 s: 5 streams within the 4 s floor, the drivers over [1, 2.6), 2 s of
    /// handover, the watchers over [4.6, 7).
    private func pairedMachine() -> DrainMachine {
        var machine = DrainMachine(
            settings: DrainSettings(grace: 1, spread: 4, handover: 2, handoverWait: 6, echo: 0.5, bound: 30), seed: 5)
        _ = machine.handle(.terminate(at: at(0)))
        _ = machine.handle(.tick(at: at(1), streams: 5, requests: 0))
        let streams = DrainStreams(
            drivers: [1, 2], watchers: [101, 102, 103], servedTrips: [1: "a", 2: "b"],
            watchedTrips: [101: "a", 102: "b", 103: "z"])
        #expect(machine.handle(.streamsListed(streams, at: at(1))) == [])
        #expect(machine.plan == DrainPlan(start: at(1), driversWindow: 1.6, handover: 2, watchersWindow: 2.4))
        return machine
    }

    /// Ticks every tenth from `from` to `to` seconds, feeding `positions` (trip, arrival) as their arrival passes;
    /// returns when each stream was closed.
    private func run(
        _ machine: inout DrainMachine, from: Int, to: Int, positions: (Double) -> [String: Date] = { _ in [:] }
    ) -> [UInt64: Double] {
        var closedAt: [UInt64: Double] = [:]
        for tenth in from...to {
            let now = Double(tenth) / 10
            var actions = machine.handle(.positionsSeen(positions(now)))
            actions += machine.handle(.tick(at: at(now), streams: 5, requests: 0))
            for case .close(let batch) in actions { for id in batch { closedAt[id] = now } }
        }
        return closedAt
    }

    @Test func aRiderMovesOnceItsDriversPositionsComeBackFromElsewhereNotBeforeTheEcho() throws {
        var probe = pairedMachine()
        let drivers = run(&probe, from: 11, to: 26)
        let closeA = try #require(drivers[1])
        var machine = pairedMachine()
        // A position of trip a every tenth from the start: the node's own until its driver's close, then, 0.5 s
        // after it (the echo), the driver's from its next node.
        let closed = run(&machine, from: 11, to: 150) { now in now >= 1.1 ? ["a": at(now)] : [:] }
        #expect(closed[1] == closeA)
        let moved = try #require(closed[101])
        #expect(abs(moved - (closeA + 0.5)) < 0.01, "rider 101 moved at \(moved), its driver at \(closeA)")
        // No evidence for b: rider 102 keeps its slot but waits 6 s after its driver's close.
        let closeB = try #require(closed[2])
        let rider102 = try #require(closed[102])
        #expect(rider102 >= closeB + 6 - 0.01 && rider102 < closeB + 6.1 + 0.01)
        // Rider 103's driver is elsewhere: it moves in its slot of the watchers' window.
        let rider103 = try #require(closed[103])
        #expect(rider103 > 4.6 && rider103 <= 7)
        #expect(Set(closed.keys) == [1, 2, 101, 102, 103])
    }

    @Test func positionsBeforeItsDriversCloseAreNoEvidence() throws {
        var machine = pairedMachine()
        // Trip a's positions stop for good at 1.1 s (before its driver's close, at 1.1 to 2.6 s).
        let closed = run(&machine, from: 11, to: 150) { now in now <= 1.1 ? ["a": at(now)] : [:] }
        let closeA = try #require(closed[1])
        let rider101 = try #require(closed[101])
        #expect(rider101 >= closeA + 6 - 0.01)
    }

    @Test func aNodeHoldingMoreThanSpreadTimesRateStreamsSendsThemAtTheRate() {
        var machine = DrainMachine(
            settings: DrainSettings(grace: 1, spread: 5, rate: 400, handover: 2, bound: 30), seed: 3)
        _ = machine.handle(.terminate(at: at(0)))
        _ = machine.handle(.tick(at: at(1), streams: 8_800, requests: 0))
        let streams = DrainStreams(drivers: (1...8_000).map(UInt64.init), watchers: (10_001...10_800).map(UInt64.init))
        _ = machine.handle(.streamsListed(streams, at: at(1)))
        // 8,800 at 400 a second: 22 s, 20 for the drivers, 2 for the riders, after the 2 s handover; 25 s in all.
        #expect(machine.plan == DrainPlan(start: at(1), driversWindow: 20, handover: 2, watchersWindow: 2))
        let closed = closes(&machine, from: 11, to: 250, streams: 8_800)
        var perSecond = Array(repeating: 0, count: 26)
        for (_, second) in closed { perSecond[Int(second.rounded(.up))] += 1 }
        #expect(perSecond[2...21].allSatisfy { $0 == 400 })
        #expect(perSecond[22...23] == [0, 0])
        #expect(perSecond[24...25] == [400, 400])
        #expect(Set(closed.map(\.0)).count == 8_800)
    }

    @Test func theWindowIsCutToWhatTheBoundLeavesKeepingASecondForTheFlush() {
        let settings = DrainSettings(grace: 1, spread: 5, rate: 400, handover: 2, bound: 30)
        // 20,000 at 400 a second would take 50 s; 28 s are left after the grace and the flush's second.
        #expect(
            settings.plan(DrainStreams(drivers: Array(1...20_000)), at: at(1), elapsed: 1)
                == DrainPlan(start: at(1), driversWindow: 28, handover: 0, watchersWindow: 0))
        #expect(
            settings.plan(DrainStreams(drivers: Array(1...15_000), watchers: Array(1...5_000)), at: at(1), elapsed: 1)
                == DrainPlan(start: at(1), driversWindow: 19.5, handover: 2, watchersWindow: 6.5))
        // No room beyond the spread: no handover, the watchers right after the drivers.
        let tight = DrainSettings(grace: 5, spread: 10, rate: 400, handover: 2, bound: 16)
        #expect(
            tight.plan(DrainStreams(drivers: [1, 2, 3], watchers: [4]), at: at(5), elapsed: 5)
                == DrainPlan(start: at(5), driversWindow: 7.5, handover: 0, watchersWindow: 2.5))
    }

    @Test func settingsThatLeaveNoRoomUnderTheBoundAreRefusedNamingTheOptions() {
        #expect(DrainSettings().problem == nil)
        #expect(DrainSettings(grace: 0, spread: 0, bound: 1).problem == nil)
        #expect(
            DrainSettings(grace: 20, spread: 10, bound: 30).problem
                == "--drain-seconds (30) must be at least --drain-grace-seconds (20) + --drain-spread-seconds (10) + 1")
        #expect(DrainSettings(grace: -1).problem == "--drain-grace-seconds must be 0 seconds or more")
        #expect(DrainSettings(spread: .nan).problem == "--drain-spread-seconds must be 0 seconds or more")
        #expect(DrainSettings(bound: 0).problem == "--drain-seconds must be more than 0 seconds")
        #expect(DrainSettings(rate: 0).problem == "--drain-rate must be more than 0 streams a second")
    }
}
