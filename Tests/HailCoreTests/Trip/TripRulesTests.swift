import Foundation
import HailCore
import Testing

@Suite("Trip rules (server authority)")
struct TripRulesTests {
    typealias F = TripFixtures
    static let driver = TripActor.driver(F.asha.id)
    static let rider = TripActor.rider(F.riderID)

    /// The design document's worked check, in Hail's own states: Asha accepts, two ETA updates, she
    /// arrives and starts, the rider's cancel is refused and changes nothing, the trip ends with 1850.
    @Test func theDesignDocumentsWorkedCheck() throws {
        var record = try TripRules.decide(.request(F.request, tripID: "trip-1"), by: Self.rider, on: nil).get()
        #expect(record.trip.state == .searching)
        #expect(record.trip.version == 1)

        record = try TripRules.decide(.offerAccepted(F.asha, etaSeconds: 300), by: Self.driver, on: record).get()
        #expect(record.trip.state == .driverAssigned)
        #expect(record.trip.driver?.name == "Asha")

        record = try TripRules.decide(.etaUpdated(seconds: 240), by: .system, on: record).get()
        #expect(record.trip.etaSeconds == 240)
        record = try TripRules.decide(.etaUpdated(seconds: 120), by: .system, on: record).get()
        #expect(record.trip.etaSeconds == 120)
        #expect(record.trip.version == 4)

        record = try TripRules.decide(.arrived, by: Self.driver, on: record).get()
        record = try TripRules.decide(.started, by: Self.driver, on: record).get()
        #expect(record.trip.state == .onTrip)
        #expect(record.trip.version == 6)

        let cancel = TripRules.decide(.riderCancels, by: Self.rider, on: record)
        #expect(
            cancel
                == .failure(TripRejection(.notAllowedInState, "a rider cannot cancel once the trip has started"))
        )

        record = try TripRules.decide(.ended(fare: F.fare), by: Self.driver, on: record).get()
        #expect(record.trip.state == .completed)
        #expect(record.trip.fare == Money(amountMinor: 1850, currency: "EUR"))
        #expect(record.trip.version == 7)
    }

    static let intents: [TripIntent] = [
        .offerAccepted(F.asha, etaSeconds: 300), .driverCancels, .arrived, .started, .ended(fare: F.fare),
        .riderCancels, .noShow, .searchTimedOut, .etaUpdated(seconds: 60),
    ]

    /// The one table: what each intent leads to from each state when the right party asks.
    static let allowed: [TripState: [String: TripState]] = [
        .searching: ["offerAccepted": .driverAssigned, "searchTimedOut": .noDriversFound, "riderCancels": .cancelled],
        .driverAssigned: [
            "driverCancels": .searching, "arrived": .driverArrived, "riderCancels": .cancelled,
            "etaUpdated": .driverAssigned,
        ],
        .driverArrived: [
            "started": .onTrip, "riderCancels": .cancelled, "driverCancels": .cancelled, "noShow": .cancelled,
        ],
        .onTrip: ["ended": .completed, "etaUpdated": .onTrip],
        .completed: [:], .cancelled: [:], .noDriversFound: [:],
    ]

    static func rightActor(for intent: TripIntent) -> TripActor {
        switch intent {
        case .riderCancels, .request: return rider
        case .searchTimedOut, .etaUpdated: return .system
        default: return driver
        }
    }

    @Test(arguments: TripState.allCases)
    func everyIntentFromEveryState(state: TripState) {
        let record = F.record(in: state)
        for intent in Self.intents {
            let result = TripRules.decide(intent, by: Self.rightActor(for: intent), on: record)
            if let expected = Self.allowed[state]?[intent.name] {
                let next = try? result.get()
                #expect(next?.trip.state == expected, "\(intent.name) from \(state)")
                #expect(next?.trip.version == record.trip.version + 1, "\(intent.name) from \(state)")
                #expect(TripTransitions.isAllowed(from: state, to: expected) || expected == state)
            } else {
                guard case .failure(let rejection) = result else {
                    Issue.record("\(intent.name) from \(state) was allowed")
                    continue
                }
                // A driver intent on a trip with no driver is "not yours" before it is "wrong state".
                let driverOnly = Self.rightActor(for: intent) == Self.driver && intent.name != "offerAccepted"
                let expected: TripRejection.Reason =
                    driverOnly && record.driverID == nil ? .forbidden : .notAllowedInState
                #expect(rejection.reason == expected, "\(intent.name) from \(state): \(rejection)")
            }
        }
    }

    @Test func theTransitionTableMatchesTheBrief() {
        let pairs = TripState.allCases.flatMap { from in
            TripState.allCases.filter { TripTransitions.isAllowed(from: from, to: $0) }.map { "\(from)->\($0)" }
        }
        #expect(
            pairs == [
                "searching->driverAssigned", "searching->cancelled", "searching->noDriversFound",
                "driverAssigned->searching", "driverAssigned->driverArrived", "driverAssigned->cancelled",
                "driverArrived->onTrip", "driverArrived->cancelled", "onTrip->completed",
            ]
        )
    }

    @Test func onlyTheAssignedDriverReportsProgress() {
        let record = F.record(in: .driverAssigned)
        for intent: TripIntent in [.arrived, .driverCancels, .noShow] {
            let other = TripRules.decide(intent, by: .driver("driver-yusuf"), on: record)
            #expect(other == .failure(TripRejection(.forbidden, "this trip is not assigned to you")))
            let riderTry = TripRules.decide(intent, by: Self.rider, on: record)
            #expect((try? riderTry.get()) == nil)
        }
        let onTrip = F.record(in: .onTrip)
        #expect((try? TripRules.decide(.ended(fare: F.fare), by: Self.rider, on: onTrip).get()) == nil)
        #expect((try? TripRules.decide(.ended(fare: F.fare), by: .system, on: onTrip).get()) == nil)
    }

    @Test func anotherRiderCannotCancel() {
        let result = TripRules.decide(.riderCancels, by: .rider("rider-2"), on: F.record(in: .searching))
        #expect(result == .failure(TripRejection(.forbidden, "this trip belongs to another rider")))
    }

    @Test func aDriverAcceptsOnlyAsThemselves() {
        let result = TripRules.decide(
            .offerAccepted(F.asha, etaSeconds: 60),
            by: .driver("driver-yusuf"),
            on: F.record(in: .searching)
        )
        #expect(result == .failure(TripRejection(.forbidden, "a driver can only accept as themselves")))
    }

    @Test func onlyTheServerTimesOutASearch() {
        let result = TripRules.decide(.searchTimedOut, by: Self.rider, on: F.record(in: .searching))
        #expect(result == .failure(TripRejection(.forbidden, "only the server can report searchTimedOut")))
    }

    @Test func aDriverWhoCancelsBeforePickupSendsTheTripBackToSearching() throws {
        let next = try TripRules.decide(.driverCancels, by: Self.driver, on: F.record(in: .driverAssigned)).get()
        #expect(next.trip.state == .searching)
        #expect(next.trip.driver == nil)
        #expect(next.trip.etaSeconds == nil)
    }

    @Test func requestsComeFromRidersAndCreateVersionOne() throws {
        let created = try TripRules.decide(.request(F.request, tripID: "t-9"), by: .rider("r-9"), on: nil).get()
        #expect(created.riderID == "r-9")
        #expect(created.trip.id == "t-9")
        #expect(created.trip.version == 1)
        let byDriver = TripRules.decide(.request(F.request, tripID: "t-9"), by: Self.driver, on: nil)
        #expect(byDriver == .failure(TripRejection(.forbidden, "only a rider can request a trip")))
        let twice = TripRules.decide(.request(F.request, tripID: "trip-1"), by: Self.rider, on: created)
        #expect(twice == .failure(TripRejection(.conflict, "trip trip-1 already exists")))
    }

    @Test func aRequestWithAnImpossiblePickupIsInvalid() {
        var request = F.request
        request.pickup.lat = 91
        let result = TripRules.decide(.request(request, tripID: "t"), by: Self.rider, on: nil)
        #expect(result == .failure(TripRejection(.invalid, "pickup: lat must be between -90 and 90")))
    }

    @Test func aNegativeOrForeignFareIsRefused() {
        let record = F.record(in: .onTrip)
        let negative = TripRules.decide(
            .ended(fare: Money(amountMinor: -1, currency: "EUR")), by: Self.driver, on: record)
        #expect(negative == .failure(TripRejection(.invalid, "fare must not be negative")))
        let bad = TripRules.decide(.ended(fare: Money(amountMinor: 10, currency: "eu")), by: Self.driver, on: record)
        #expect((try? bad.get()) == nil)
    }

    @Test func anUnchangedEtaKeepsTheVersion() throws {
        var record = F.record(in: .driverAssigned)
        record.trip.etaSeconds = 120
        let same = try TripRules.decide(.etaUpdated(seconds: 120), by: .system, on: record).get()
        #expect(same == record)
        let changed = try TripRules.decide(.etaUpdated(seconds: 60), by: .system, on: record).get()
        #expect(changed.trip.version == record.trip.version + 1)
    }

    @Test func changingATripThatDoesNotExistIsAConflict() {
        #expect(
            TripRules.decide(.arrived, by: Self.driver, on: nil)
                == .failure(TripRejection(.conflict, "there is no trip to change")))
    }
}
