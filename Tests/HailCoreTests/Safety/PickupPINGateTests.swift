import Foundation
import HailCore
import Testing

@Suite("Pickup PIN: the gate on started, pure")
struct PickupPINGateTests {
    typealias F = TripFixtures
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func arrived(pin: String? = "4071") -> TripRecord {
        var record = F.record(in: .driverArrived, version: 5)
        record.pickupPIN = pin
        record.trip.requiresPickupPIN = pin == nil ? nil : true
        return record
    }

    @Test func aRequestWithAPINMarksTheTripAndKeepsTheCodeOffTheSharedTrip() throws {
        let record = try TripRules.decide(
            .request(F.request, tripID: "t-1", pickupPIN: "0093"), by: .rider(F.riderID), on: nil
        ).get()
        #expect(record.pickupPIN == "0093")
        #expect(record.trip.requiresPickupPIN == true)
        #expect(record.trip.pickupPIN == nil)
        #expect(record.tripForRider.pickupPIN == "0093")
        let bad = TripRules.decide(.request(F.request, tripID: "t-1", pickupPIN: "93"), by: .rider(F.riderID), on: nil)
        #expect(bad == .failure(TripRejection(.invalid, "a pickup PIN is 4 digits")))
    }

    @Test func theRightPINPassesAndClearsTheCount() {
        var record = Self.arrived()
        record.pinAttempts = PickupPINAttempts(wrong: 3)
        guard case .pass(let passed) = PickupPINGate.judge("4071", on: record, now: Self.t0) else {
            Issue.record("the right PIN did not pass")
            return
        }
        #expect(passed.pinAttempts == nil)
        #expect(passed.trip.version == 5)
    }

    @Test func noPINOrAWrongOneCountsDownAndTheFifthLocksForSixtySeconds() {
        var record = Self.arrived()
        var verdicts: [PickupPINGate.Verdict] = []
        for entered in [nil, "0000", "4070", "9999", "1234"] as [String?] {
            let verdict = PickupPINGate.judge(entered, on: record, now: Self.t0)
            verdicts.append(verdict)
            if case .wrong(let counted, _, _) = verdict { record = counted }
        }
        let left = verdicts.map { verdict -> Int? in
            if case .wrong(_, let left, _) = verdict { return left }
            return nil
        }
        #expect(left == [4, 3, 2, 1, 0])
        #expect(record.trip.version == 10)
        #expect(record.trip.state == .driverArrived)
        #expect(record.pinAttempts == PickupPINAttempts(wrong: 5, lockedUntil: Self.t0.addingTimeInterval(60)))
        // Locked: the right PIN is not even checked until the minute is over, and nothing changes.
        #expect(
            PickupPINGate.judge("4071", on: record, now: Self.t0.addingTimeInterval(59.9))
                == .locked(until: Self.t0.addingTimeInterval(60)))
        guard case .pass = PickupPINGate.judge("4071", on: record, now: Self.t0.addingTimeInterval(60)) else {
            Issue.record("the right PIN after the lock did not pass")
            return
        }
        // After the lock a wrong PIN starts a fresh run of five.
        guard
            case .wrong(_, let fresh, nil) = PickupPINGate.judge(
                "0000", on: record, now: Self.t0.addingTimeInterval(61))
        else {
            Issue.record("a wrong PIN after the lock was not counted afresh")
            return
        }
        #expect(fresh == 4)
    }

    @Test func aTripWithoutAPINPassesWhateverIsSent() {
        #expect(PickupPINGate.judge(nil, on: Self.arrived(pin: nil), now: Self.t0) == .pass(Self.arrived(pin: nil)))
        #expect(PickupPINGate.judge("1234", on: Self.arrived(pin: nil), now: Self.t0) == .pass(Self.arrived(pin: nil)))
    }

    @Test func codesAreFourDigitsZeroPaddedFromASeededGenerator() {
        var random = SplitMix64(seed: 41)
        let codes = (0..<200).map { _ in PickupPIN.make(using: &random) }
        #expect(codes.allSatisfy(PickupPIN.isWellFormed))
        #expect(Set(codes).count > 150)
        #expect(!PickupPIN.isWellFormed("123"))
        #expect(!PickupPIN.isWellFormed("12345"))
        #expect(!PickupPIN.isWellFormed("12a4"))
        #expect(!PickupPIN.isWellFormed("١٢٣٤"))
        #expect(PickupPIN.isWellFormed("0000"))
    }

    @Test func theRidersMirrorKeepsThePINThatOnlyRESTAnswersCarry() {
        var created = F.record(in: .searching, version: 1).trip
        created.pickupPIN = "4071"
        var machine = TripStateMachine(trip: created)
        // A frame (no PIN) of a newer version keeps the PIN on screen.
        var frame = F.record(in: .driverAssigned, version: 2).trip
        frame.requiresPickupPIN = true
        machine.apply(frame)
        #expect(machine.trip?.pickupPIN == "4071")
        #expect(machine.trip?.state == .driverAssigned)
        // The 201 answer arriving after the frame still brings its PIN.
        var late = TripStateMachine(trip: frame)
        #expect(late.apply(created) == .ignoredStale(current: 2, received: 1))
        #expect(late.trip?.pickupPIN == "4071")
        #expect(late.trip?.state == .driverAssigned)
    }

    @Test func anOlderAppDecodesATripWithTheNewFieldsAndANewerServerDecodesAnOldTrip() throws {
        var trip = F.record(in: .driverArrived, version: 3).trip
        trip.requiresPickupPIN = true
        trip.pickupPIN = "4071"
        let json = try JSONEncoder().encode(trip)
        // An app built before PINs knows only the fields it had; unknown keys are ignored.
        struct OlderTrip: Decodable {
            var id: String
            var state: TripState
            var version: Int
        }
        let older = try JSONDecoder().decode(OlderTrip.self, from: json)
        #expect(older.id == "trip-1")
        #expect(older.state == .driverArrived)
        #expect(older.version == 3)
        // A trip stored or sent before PINs decodes with none.
        var plain = trip
        plain.requiresPickupPIN = nil
        plain.pickupPIN = nil
        let oldJSON = try JSONEncoder().encode(plain)
        #expect(!String(decoding: oldJSON, as: UTF8.self).contains("PIN"))
        #expect(try JSONDecoder().decode(Trip.self, from: oldJSON) == plain)
        let oldRecord = #"{"trip": \#(String(decoding: oldJSON, as: UTF8.self)), "riderID": "rider-1"}"#
        let record = try JSONDecoder().decode(TripRecord.self, from: Data(oldRecord.utf8))
        #expect(record.pickupPIN == nil)
        #expect(record.pinAttempts == nil)
    }
}
