import Foundation
import HailCore
import HailProtocol
import Testing

@testable import HailRider

@Suite("The rider registers its push tokens and registers them again after a resync")
@MainActor
struct RiderPushTokenTests {
    static let deviceToken = Data((0..<32).map { UInt8($0 * 7 & 0xff) })
    static let deviceHex = "00070e151c232a31383f464d545b626970777e858c939aa1a8afb6bdc4cbd2d9"
    static let activityToken = Data(repeating: 0xab, count: 40)

    @Test func theDeviceTokenGoesOutAsHexAndAgainAfterEveryResync() async throws {
        let h = RiderHarness()
        await h.model.deviceTokenReceived(Self.deviceToken, environment: .sandbox, bundleID: "com.example.rider")
        #expect(
            await h.api.devices == [
                DeviceRegistration(token: Self.deviceHex, environment: .sandbox, bundleID: "com.example.rider")
            ])
        await h.model.launch()
        #expect(await h.api.devices.count == 2)
        #expect(await h.api.devices.last?.token == Self.deviceHex)
    }

    @Test func theLiveActivityTokenIsRegisteredWhileItsTripRunsAndForgottenWhenItEnds() async throws {
        let h = RiderHarness(trip: Fixtures.trip(.driverAssigned, version: 2))
        await h.model.launch()
        await h.model.liveActivityTokenReceived(Self.activityToken, for: "trip-1")
        let hex = String(repeating: "ab", count: 40)
        #expect(await h.api.activities.map(\.tripID) == ["trip-1"])
        #expect(await h.api.activities.map(\.token) == [hex])
        await h.model.launch()
        #expect(await h.api.activities.count == 2)
        // The trip completes while the app is away: the next resync shows the end and sends no token.
        await h.api.put(Fixtures.trip(.completed, version: 5, fare: Money(amountMinor: 1850, currency: "EUR")))
        await h.model.launch()
        #expect(h.model.screen.phase == .completed)
        #expect(await h.api.activities.count == 2)
        await h.model.launch()
        #expect(await h.api.count("registerLiveActivity") == 2)
    }

    @Test func aRefusedTokenIsNotSentAgainButOneThatGotNoAnswerIs() async throws {
        let h = RiderHarness()
        await h.api.setUnreachable(true)
        await h.model.deviceTokenReceived(Self.deviceToken, environment: .production)
        await h.api.setUnreachable(false)
        await h.model.launch()
        #expect(await h.api.devices.map(\.token) == [Self.deviceHex])
        await h.api.refuseRegistrations(with: APIError.invalidField("token", "token must be hexadecimal digits"))
        await h.model.launch()
        await h.api.refuseRegistrations(with: nil)
        await h.model.launch()
        #expect(await h.api.count("registerDevice") == 3)
    }
}
