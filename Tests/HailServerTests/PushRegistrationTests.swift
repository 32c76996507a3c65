import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

@Suite("Registering device and Live Activity push tokens")
struct PushRegistrationTests {
    static let deviceToken = String(repeating: "ab12", count: 16)
    static let otherToken = String(repeating: "cd34", count: 16)

    static func device(_ token: String = deviceToken, environment: String = "production", bundle: String? = nil)
        -> String
    {
        let bundleField = bundle.map { #", "bundleID": "\#($0)""# } ?? ""
        return #"{"platform": "ios", "token": "\#(token)", "environment": "\#(environment)"\#(bundleField)}"#
    }

    @Test func aRiderAndADriverRegisterOneDeviceEachAndANewerTokenReplacesTheOlder() async throws {
        let h = await ServerHarness()
        let rider = await h.call("PUT", "/v1/devices/me", token: h.token(.rider, "rider-1"), json: Self.device())
        #expect(rider.status == 204)
        let driver = await h.call(
            "PUT", "/v1/devices/me", token: h.token(.driver, "driver-1"),
            json: Self.device(Self.otherToken.uppercased(), environment: "sandbox", bundle: "com.example.driver"))
        #expect(driver.status == 204)
        #expect(
            try await h.services.trips.device(principal: "rider:rider-1")
                == DeviceTokenRecord(
                    principal: "rider:rider-1", token: Self.deviceToken, environment: .production, bundleID: nil,
                    updatedAt: h.now))
        #expect(
            try await h.services.trips.device(principal: "driver:driver-1")
                == DeviceTokenRecord(
                    principal: "driver:driver-1", token: Self.otherToken, environment: .sandbox,
                    bundleID: "com.example.driver", updatedAt: h.now))
        // The rider's phone got a new token: it replaces the old one.
        let newer = String(repeating: "ef56", count: 16)
        await h.call("PUT", "/v1/devices/me", token: h.token(.rider, "rider-1"), json: Self.device(newer))
        #expect(try await h.services.trips.device(principal: "rider:rider-1")?.token == newer)
        // Sign-out forgets it, twice is fine.
        let out = await h.call("DELETE", "/v1/devices/me", token: h.token(.rider, "rider-1"))
        let again = await h.call("DELETE", "/v1/devices/me", token: h.token(.rider, "rider-1"))
        #expect([out.status, again.status] == [Int]([204, 204]))
        #expect(try await h.services.trips.device(principal: "rider:rider-1") == nil)
        #expect(try await h.services.trips.device(principal: "driver:driver-1") != nil)
    }

    @Test func putAndDeleteCrossRealSockets() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (h, server) = try await ServerHarness.loopback(databasePath: path)
        defer { Task { await server.shutdown() } }
        let rider = h.token(.rider, "rider-1")
        let put = await h.call("PUT", "/v1/devices/me", token: rider, json: Self.device())
        #expect(put.status == 204)
        #expect(try await h.services.trips.device(principal: "rider:rider-1")?.token == Self.deviceToken)
        let bad = await h.call("PUT", "/v1/devices/me", token: rider, json: Self.device("12"))
        #expect(bad.status == 400)
        #expect(h.error(from: bad)?.field == "token")
        let delete = await h.call("DELETE", "/v1/devices/me", token: rider)
        #expect(delete.status == 204)
        #expect(try await h.services.trips.device(principal: "rider:rider-1") == nil)
    }

    @Test func aTokenMovesToWhoeverRegistersItLast() async throws {
        let h = await ServerHarness()
        await h.call("PUT", "/v1/devices/me", token: h.token(.rider, "rider-1"), json: Self.device())
        await h.call("PUT", "/v1/devices/me", token: h.token(.rider, "rider-2"), json: Self.device())
        #expect(try await h.services.trips.device(principal: "rider:rider-1") == nil)
        #expect(try await h.services.trips.device(principal: "rider:rider-2")?.token == Self.deviceToken)
    }

    @Test(arguments: [
        (
            #"{"platform": "android", "token": "\#(deviceToken)", "environment": "production"}"#, "platform",
            "expected one of ios"
        ),
        (
            #"{"platform": "ios", "token": "\#(deviceToken)", "environment": "staging"}"#, "environment",
            "expected one of"
        ),
        (
            #"{"platform": "ios", "token": "zz\#(deviceToken.dropFirst(2))", "environment": "production"}"#, "token",
            "token must be hexadecimal digits (0-9, a-f)"
        ),
        (
            #"{"platform": "ios", "token": "abcd", "environment": "production"}"#, "token",
            "token must be an even number of hex digits from 64 to 200, not 4"
        ),
        (
            #"{"platform": "ios", "token": "\#(deviceToken)a", "environment": "production"}"#, "token",
            "token must be an even number of hex digits from 64 to 200, not 65"
        ),
        (
            #"{"platform": "ios", "token": "\#(deviceToken)", "environment": "production", "bundleID": "no spaces"}"#,
            "bundleID", "bundleID must be a bundle id such as com.example.rider"
        ),
        (#"{"platform": "ios", "environment": "production"}"#, "token", "token is required"),
    ])
    func badDeviceBodiesAre400NamingTheFieldAndStoreNothing(body: String, field: String, message: String) async throws {
        let h = await ServerHarness()
        let response = await h.call("PUT", "/v1/devices/me", token: h.token(.rider, "rider-1"), json: body)
        #expect(response.status == 400)
        let error = try #require(h.error(from: response))
        #expect(error.field == field)
        #expect(error.message.contains(message), "\(error.message)")
        #expect(try await h.services.trips.device(principal: "rider:rider-1") == nil)
    }

    @Test func onlyRidersAndDriversWithATokenRegisterDevices() async throws {
        let h = await ServerHarness()
        let anonymous = await h.call("PUT", "/v1/devices/me", json: Self.device())
        let share = await h.call(
            "PUT", "/v1/devices/me", token: h.token(.share, "share-1", trip: "trip-1"), json: Self.device())
        #expect([anonymous.status, share.status] == [Int]([401, 403]))
    }

    @Test func theRiderRegistersTheLiveActivityOfTheirActiveTrip() async throws {
        let h = await ServerHarness()
        try await RideFlowTests.tripOnTrip(h)
        let put = await h.call(
            "PUT", "/v1/trips/trip-1/live-activity", token: h.token(.rider, "rider-1"),
            json: #"{"token": "\#(Self.otherToken)"}"#)
        #expect(put.status == 204)
        #expect(
            try await h.services.trips.liveActivity(tripID: "trip-1")
                == LiveActivityTokenRecord(
                    tripID: "trip-1", riderID: "rider-1", token: Self.otherToken, updatedAt: h.now))
    }

    @Test func liveActivityRefusalsAreExactAndStoreNothing() async throws {
        let h = await ServerHarness()
        try await RideFlowTests.tripOnTrip(h)
        let body = #"{"token": "\#(Self.otherToken)"}"#
        let notHex = await h.call(
            "PUT", "/v1/trips/trip-1/live-activity", token: h.token(.rider, "rider-1"), json: #"{"token": "xyz"}"#)
        let unknown = await h.call(
            "PUT", "/v1/trips/trip-9/live-activity", token: h.token(.rider, "rider-1"), json: body)
        let someoneElses = await h.call(
            "PUT", "/v1/trips/trip-1/live-activity", token: h.token(.rider, "rider-2"), json: body)
        let driver = await h.call(
            "PUT", "/v1/trips/trip-1/live-activity", token: h.token(.driver, "driver-1"), json: body)
        #expect([notHex.status, unknown.status, someoneElses.status, driver.status] == [Int]([400, 404, 403, 403]))
        #expect(h.error(from: notHex)?.field == "token")
        #expect(h.error(from: unknown)?.message == "there is no trip trip-9")
        #expect(h.error(from: someoneElses)?.message == "trip trip-1 is not yours")
        #expect(try await h.services.trips.liveActivity(tripID: "trip-1") == nil)
        let ended = await h.call(
            "POST", "/v1/trips/trip-1/events", token: h.token(.driver, "driver-1"),
            json: #"{"event": "ended", "idempotencyKey": "\#(UUID().uuidString)"}"#)
        #expect(ended.status == 200)
        let late = await h.call(
            "PUT", "/v1/trips/trip-1/live-activity", token: h.token(.rider, "rider-1"), json: body)
        #expect(late.status == 409)
        #expect(h.error(from: late)?.message == "trip trip-1 has ended; its Live Activity gets no more pushes")
        #expect(try await h.services.trips.liveActivity(tripID: "trip-1") == nil)
    }

    @Test func tokensSurviveARestartOfTheSQLiteStore() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let at = Date(timeIntervalSince1970: 1_796_220_000)
        do {
            let stores = try await SQLiteTripStores.open(path: path)
            try await stores.trips.saveDevice(
                DeviceTokenRecord(
                    principal: "rider:rider-1", token: Self.deviceToken, environment: .sandbox,
                    bundleID: "com.example.rider", updatedAt: at))
            try await stores.trips.saveLiveActivity(
                LiveActivityTokenRecord(tripID: "trip-1", riderID: "rider-1", token: Self.otherToken, updatedAt: at))
            try await stores.trips.saveLiveActivity(
                LiveActivityTokenRecord(tripID: "trip-2", riderID: "rider-1", token: Self.deviceToken, updatedAt: at))
        }
        let reopened = try await SQLiteTripStores.open(path: path)
        #expect(
            try await reopened.trips.device(principal: "rider:rider-1")
                == DeviceTokenRecord(
                    principal: "rider:rider-1", token: Self.deviceToken, environment: .sandbox,
                    bundleID: "com.example.rider", updatedAt: at))
        #expect(try await reopened.trips.liveActivity(tripID: "trip-1")?.token == Self.otherToken)
        // APNs said the device token is dead: it goes from the device and from any activity holding it.
        try await reopened.trips.removePushToken(Self.deviceToken)
        #expect(try await reopened.trips.device(principal: "rider:rider-1") == nil)
        #expect(try await reopened.trips.liveActivity(tripID: "trip-2") == nil)
        #expect(try await reopened.trips.liveActivity(tripID: "trip-1")?.token == Self.otherToken)
        try await reopened.trips.removeLiveActivity(tripID: "trip-1")
        #expect(try await reopened.trips.liveActivity(tripID: "trip-1") == nil)
    }
}
