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
        #expect(machine.handle(.streamsListed(ids, at: at(5))) == [])
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
            _ = machine.handle(.streamsListed((1...20).map(UInt64.init), at: at(5)))
            return machine.pendingCloses.map(\.id)
        }
        #expect(schedule(3) == schedule(3))
        #expect(schedule(3) != schedule(4))
    }

    @Test func afterTheWindowTheRestIsClosedAndTheFlushWaitsForTheLastStreamAndRequest() {
        var machine = DrainMachine(settings: settings, seed: 1)
        _ = machine.handle(.terminate(at: at(0)))
        _ = machine.handle(.tick(at: at(5), streams: 1, requests: 0))
        #expect(machine.handle(.streamsListed([42], at: at(5))) == [])
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
        #expect(machine.handle(.streamsListed([], at: at(1))) == [])
        #expect(machine.handle(.tick(at: at(2.9), streams: 0, requests: 0)) == [])
        #expect(machine.handle(.tick(at: at(3), streams: 0, requests: 0)) == [.closeRemaining, .flush])
    }

    @Test func theBoundEndsTheDrainWhateverIsStillOpen() {
        var machine = DrainMachine(settings: settings, seed: 1)
        _ = machine.handle(.terminate(at: at(0)))
        _ = machine.handle(.tick(at: at(5), streams: 1, requests: 0))
        _ = machine.handle(.streamsListed([1], at: at(5)))
        _ = machine.handle(.tick(at: at(15), streams: 1, requests: 0))
        #expect(machine.handle(.tick(at: at(29.9), streams: 1, requests: 0)) == [])
        #expect(machine.handle(.tick(at: at(30), streams: 1, requests: 0)) == [.exit(.boundReached)])
        #expect(machine.handle(.tick(at: at(31), streams: 0, requests: 0)) == [])
        #expect(DrainOutcome.boundReached.exitStatus == 0)
    }

    @Test func aFlushThatOutlastsTheBoundStillEndsAtTheBound() {
        var machine = DrainMachine(settings: DrainSettings(grace: 0, spread: 0, bound: 3), seed: 1)
        _ = machine.handle(.terminate(at: at(0)))
        _ = machine.handle(.streamsListed([], at: at(0)))
        #expect(machine.handle(.tick(at: at(0.1), streams: 0, requests: 0)) == [.closeRemaining, .flush])
        #expect(machine.handle(.tick(at: at(3), streams: 0, requests: 0)) == [.exit(.boundReached)])
        #expect(machine.handle(.flushed(at: at(3.1))) == [])
    }

    @Test func aSecondSignalForcesTheExitAtAnyStep() {
        for steps in 0...3 {
            var machine = DrainMachine(settings: settings, seed: 1)
            _ = machine.handle(.terminate(at: at(0)))
            if steps >= 1 { _ = machine.handle(.tick(at: at(5), streams: 1, requests: 0)) }
            if steps >= 2 { _ = machine.handle(.streamsListed([1], at: at(5))) }
            if steps >= 3 { _ = machine.handle(.tick(at: at(15), streams: 0, requests: 0)) }
            #expect(machine.handle(.terminate(at: at(16))) == [.exit(.forced)])
            #expect(machine.handle(.terminate(at: at(17))) == [])
        }
        #expect(DrainOutcome.forced.exitStatus == 1)
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
    }
}
