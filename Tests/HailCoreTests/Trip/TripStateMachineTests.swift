import HailCore
import HailTesting
import Testing

@Suite("Client trip state machine")
struct TripStateMachineTests {
    typealias F = TripFixtures

    static func trip(_ state: TripState, version: Int, id: String = "trip-1") -> Trip {
        var trip = F.record(in: state, version: version).trip
        trip.id = id
        return trip
    }

    @Test func appliesNewerVersions() {
        var machine = TripStateMachine()
        #expect(machine.apply(Self.trip(.searching, version: 1)) == .applied)
        #expect(machine.apply(Self.trip(.driverAssigned, version: 2)) == .applied)
        #expect(machine.trip?.state == .driverAssigned)
        #expect(machine.isActive)
    }

    @Test(arguments: [2, 1])
    func ignoresAVersionThatRepeatsOrGoesBackwards(version: Int) {
        var machine = TripStateMachine(trip: Self.trip(.driverArrived, version: 2))
        let outcome = machine.apply(Self.trip(.driverAssigned, version: version))
        #expect(outcome == .ignoredStale(current: 2, received: version))
        #expect(machine.trip?.state == .driverArrived)
        #expect(machine.trip?.version == 2)
    }

    @Test func acceptsAndReportsAJumpItDidNotExpect() {
        var machine = TripStateMachine(trip: Self.trip(.driverAssigned, version: 2))
        let outcome = machine.apply(Self.trip(.completed, version: 6))
        #expect(outcome == .appliedWithJump(from: .driverAssigned, to: .completed))
        #expect(machine.trip?.state == .completed)
        #expect(!machine.isActive)
    }

    @Test func anotherTripDoesNotReplaceALiveOne() {
        var machine = TripStateMachine(trip: Self.trip(.onTrip, version: 5))
        #expect(
            machine.apply(Self.trip(.searching, version: 1, id: "trip-2"))
                == .ignoredOtherTrip(
                    current: "trip-1", received: "trip-2"))
        #expect(machine.trip?.id == "trip-1")
    }

    @Test func aNewTripReplacesAFinishedOne() {
        var machine = TripStateMachine(trip: Self.trip(.completed, version: 7))
        #expect(machine.apply(Self.trip(.searching, version: 1, id: "trip-2")) == .applied)
        #expect(machine.trip?.id == "trip-2")
    }

    @Test func resyncWithNoActiveTripDropsALiveTripButKeepsAFinishedOne() {
        var live = TripStateMachine(trip: Self.trip(.onTrip, version: 5))
        live.replace(with: nil)
        #expect(live.trip == nil)
        var finished = TripStateMachine(trip: Self.trip(.completed, version: 7))
        finished.replace(with: nil)
        #expect(finished.trip?.fare?.amountMinor == 1850)
    }

    @Test func resyncOfTheSameTripNeverUndoesANewerStreamUpdate() {
        var machine = TripStateMachine(trip: Self.trip(.onTrip, version: 6))
        #expect(machine.replace(with: Self.trip(.driverArrived, version: 5)) == .ignoredStale(current: 6, received: 5))
        #expect(machine.trip?.state == .onTrip)
    }

    /// Any shuffled, duplicated delivery of a trip's versions never moves the mirror backwards and ends
    /// on the newest version.
    @Test(arguments: 0..<200)
    func shuffledDuplicatedUpdatesNeverMoveBackwards(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let lifecycle: [TripState] = [.searching, .driverAssigned, .driverArrived, .onTrip, .completed]
        var deliveries: [Trip] = []
        for (index, state) in lifecycle.enumerated() {
            let copies = Int.random(in: 1...3, using: &rng)
            for _ in 0..<copies { deliveries.append(Self.trip(state, version: index + 1)) }
        }
        deliveries.shuffle(using: &rng)
        var machine = TripStateMachine()
        var highest = 0
        for delivery in deliveries {
            machine.apply(delivery)
            let version = machine.trip?.version ?? 0
            #expect(version >= highest)
            highest = version
        }
        #expect(machine.trip?.version == 5)
        #expect(machine.trip?.state == .completed)
    }
}
