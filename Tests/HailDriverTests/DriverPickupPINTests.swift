import Foundation
import HailAppDoubles
import HailCore
import HailDriver
import HailProtocol
import HailTestSupport
import HailTime
import Testing

/// The driver's PIN field: "Start" waits for 4 digits on a trip that needs them, and sends them with "started".
@Suite("DriverModel's pickup PIN input")
@MainActor
struct DriverPickupPINTests {
    static func arrived(requiresPIN: Bool?) -> Trip {
        var trip = Fixture.trip("t-pin", .driverArrived, version: 4)
        trip.requiresPickupPIN = requiresPIN
        return trip
    }

    static func model(_ api: FakeDriverAPI) -> DriverModel {
        DriverModel(
            api: api, channel: ScriptedDriverChannel(serverTime: Fixture.origin), location: ScriptedLocationSource(),
            store: MemoryOutboxStore(), timeline: Timeline(clock: ManualClock(), origin: Fixture.origin),
            random: SplitMix64(seed: 1))
    }

    @Test func startWaitsForFourDigitsAndSendsThem() async throws {
        let api = FakeDriverAPI(active: Self.arrived(requiresPIN: true))
        let model = Self.model(api)
        await model.start()
        #expect(model.needsPickupPIN)
        await model.tap(.started)
        #expect(model.outbox.entries.isEmpty)

        model.enterPickupPIN("4 0 7")
        #expect(model.pickupPINEntry == "407")
        #expect(model.needsPickupPIN)
        model.enterPickupPIN("40a71 9")
        #expect(model.pickupPINEntry == "4071")
        #expect(!model.needsPickupPIN)

        await model.tap(.started)
        try await eventually(model, "started confirmed") { $0.trip?.state == .onTrip }
        #expect(await api.startPINs == ["4071"])
        // The field is cleared for the next attempt, should this one be refused.
        #expect(model.pickupPINEntry == "")
    }

    @Test func aTripWithoutAPINStartsWithoutOne() async throws {
        let api = FakeDriverAPI(active: Self.arrived(requiresPIN: nil))
        let model = Self.model(api)
        await model.start()
        #expect(!model.needsPickupPIN)
        model.enterPickupPIN("1234")
        await model.tap(.started)
        try await eventually(model, "started confirmed") { $0.trip?.state == .onTrip }
        #expect(await api.startPINs == [nil])
    }
}
