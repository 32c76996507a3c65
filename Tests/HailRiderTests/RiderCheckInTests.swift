import Foundation
import HailCore
import HailProtocol
import HailTestSupport
import Testing

@testable import HailRider

/// The rider's side of a trip alert: the stream's `tripAlert` shows it, `checkIn(_:)` answers it once, and it goes
/// when the ride ends.
@Suite("RiderModel: a trip alert and the rider's check-in")
@MainActor
struct RiderCheckInTests {
    static let alert = TripAlert(
        kind: .longStop, since: Fixtures.serverEpoch.addingTimeInterval(30),
        raisedAt: Fixtures.serverEpoch.addingTimeInterval(211))

    @Test func anAlertOnTheStreamIsShownAndTheRidersAnswerIsKept() async throws {
        var trip = Fixtures.trip(.onTrip, version: 5, eta: 600)
        let api = FakeTripAPI(trip: trip)
        let h = RiderHarness(api: api)
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        let connection = try await h.channel.connections.next()
        connection.hello(at: 0)
        // Nothing to answer yet: no call is made.
        #expect(await h.model.checkIn(.ok) == false)
        #expect(await api.count("checkIn") == 0)
        // The server raised it: its version first, then the frame.
        trip.version = 6
        trip.alert = Self.alert
        await api.put(trip)
        connection.send(.tripUpdated(Fixtures.trip(.onTrip, version: 6, eta: 600)), .tripAlert(Self.alert))
        try await h.until("the alert") { h.model.alert != nil }
        #expect(h.model.alert == Self.alert)
        #expect(await h.model.checkIn(.help))
        #expect(h.model.alert?.answer == .help)
        #expect(h.model.alert?.answeredAt == Self.alert.raisedAt.addingTimeInterval(20))
        #expect(h.model.trip?.version == 7)
        // The stream's frame of the same alert, late, does not take the answer away.
        connection.send(.tripAlert(Self.alert))
        connection.send(.tripUpdated(Fixtures.trip(.onTrip, version: 8, eta: 500)))
        try await h.until("eta 500") { h.model.trip?.etaSeconds == 500 }
        #expect(h.model.alert?.answer == .help)
        // The ride ends: no alert to show any more.
        connection.send(.tripUpdated(Fixtures.trip(.completed, version: 9)))
        try await h.until("completed") { h.model.trip?.state == .completed }
        #expect(h.model.alert == nil)
        #expect(await api.count("checkIn") == 1)
        h.model.stop()
    }
}
