import Foundation
import HailCore
import Testing

@testable import HailFleet

/// The ledger that gives each acknowledged fix of a fleet driver its trip: by the spans the app showed the trip
/// under way, and by the ack naming its own batch.
@Suite struct FixLedgerTests {
    private static func fix(_ second: Double) -> LocationPoint {
        LocationPoint(
            lat: 43.73, lng: 7.42, accuracy: 5, heading: 0, speed: 10, t: Date(timeIntervalSince1970: second))
    }

    @Test func aFixIsTheTripsFromTheAppShowingItOnTripToShowingItOver() {
        var ledger = FixLedger()
        ledger.tripShown(id: "t-1", state: .driverAssigned, now: Date(timeIntervalSince1970: 90))
        ledger.tripShown(id: "t-1", state: .onTrip, now: Date(timeIntervalSince1970: 100))
        ledger.tripShown(id: "t-1", state: .onTrip, now: Date(timeIntervalSince1970: 103))
        ledger.tripShown(id: "t-1", state: .completed, now: Date(timeIntervalSince1970: 110))
        ledger.tripShown(id: "t-2", state: .onTrip, now: Date(timeIntervalSince1970: 120))
        let attributed = ledger.attribute([95, 100, 105, 110, 111, 125].map(Self.fix))
        #expect(attributed.map(\.tripID) == [nil, "t-1", "t-1", "t-1", nil, "t-2"])
    }

    @Test func aTripBeginsFromTheNewestAcknowledgedFixWhereTheCarStood() {
        var ledger = FixLedger()
        ledger.sent(LocationBatch(seq: 1, points: [Self.fix(80), Self.fix(85)]))
        ledger.sent(LocationBatch(seq: 2, points: [Self.fix(99)]))
        _ = ledger.acknowledged(seq: 1)
        ledger.acknowledged([Self.fix(70)])
        #expect(ledger.tripShown(id: "t-1", state: .driverArrived, now: Date(timeIntervalSince1970: 95)) == nil)
        // Seq 2 went out but was never acknowledged: the trip begins at 85.
        #expect(ledger.tripShown(id: "t-1", state: .onTrip, now: Date(timeIntervalSince1970: 100)) == Self.fix(85))
        #expect(ledger.tripShown(id: "t-1", state: .onTrip, now: Date(timeIntervalSince1970: 101)) == nil)
    }

    @Test func anAckAcknowledgesItsOwnBatchOnce() {
        var ledger = FixLedger()
        ledger.sent(LocationBatch(seq: 7, points: [Self.fix(1)]))
        ledger.sent(LocationBatch(seq: 8, points: [Self.fix(2), Self.fix(3)]))
        #expect(ledger.acknowledged(seq: 8)?.points.count == 2)
        #expect(ledger.acknowledged(seq: 8) == nil)
        #expect(ledger.acknowledged(seq: 9) == nil)
        #expect(ledger.acknowledged(seq: 7)?.points == [Self.fix(1)])
        #expect(ledger.pending.isEmpty)
    }

    @Test func unacknowledgedBatchesAreForgottenOldestFirstPastTheLimit() {
        var ledger = FixLedger()
        for seq in 1...Int64(FixLedger.pendingLimit + 1) { ledger.sent(LocationBatch(seq: seq, points: [])) }
        #expect(ledger.pending.count == FixLedger.pendingLimit)
        #expect(ledger.pending[1] == nil)
        #expect(ledger.pending[2] != nil)
    }
}
