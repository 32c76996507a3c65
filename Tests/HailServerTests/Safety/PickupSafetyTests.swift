import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

/// The pickup PIN and the position check on `arrived` and `started` (issue 41), through the API on the embedded
/// shape: what each party is told, what is refused with which numbers, and what the trip's event log keeps.
@Suite("Pickup safety through the API")
struct PickupSafetyTests {
    static let pickup = Coordinate(lat: 43.7396, lng: 7.4276)

    static func pinRequest() -> String {
        #"{"pickup": {"lat": 43.7396, "lng": 7.4276}, "dropoff": {"lat": 43.7314, "lng": 7.4197}, "#
            + #""productID": "economy", "requirePickupPIN": true}"#
    }

    static func event(_ name: String, pin: String? = nil) -> String {
        let pinField = pin.map { #", "pin": "\#($0)""# } ?? ""
        return #"{"event": "\#(name)", "idempotencyKey": "\#(UUID().uuidString)"\#(pinField)}"#
    }

    /// A trip of rider-1 accepted by driver-1, who stands at `driverAt`; returns the rider's 201 trip.
    static func assigned(_ h: ServerHarness, body: String, driverAt: Coordinate) async throws -> Trip {
        await h.onlineDriver("driver-1", at: driverAt)
        let created = await h.call(
            "POST", "/v1/trips", token: h.token(.rider, "rider-1"), json: body, key: UUID().uuidString)
        #expect(created.status == 201)
        let accepted = await h.call(
            "POST", "/v1/trips/trip-1/accept", token: h.token(.driver, "driver-1"), key: UUID().uuidString)
        #expect(accepted.status == 200)
        // The driver's answer says a PIN is needed, never which.
        #expect(try h.trip(from: accepted).pickupPIN == nil)
        #expect(!String(decoding: accepted.body, as: UTF8.self).contains("pickupPIN\""))
        return try h.trip(from: created)
    }

    func refusals(_ h: ServerHarness, _ kind: String, _ reason: String) -> Double {
        h.services.metrics.registry.total("hail_proposals_refused_total", matching: ["kind": kind, "reason": reason])
    }

    @Test func aStartWithoutTheRightPINIsRefusedAndFiveWrongOnesLockStartingForAMinute() async throws {
        let h = await ServerHarness()
        var driverFrames = await TopicReader(h.services.bus, .driver("driver-1"))
        var riderFrames = await TopicReader(h.services.bus, .trip("trip-1"))
        let created = try await Self.assigned(h, body: Self.pinRequest(), driverAt: Self.pickup)
        let pin = try #require(created.pickupPIN)
        #expect(PickupPIN.isWellFormed(pin))
        #expect(created.requiresPickupPIN == true)
        let wrong = pin == "0000" ? "1111" : "0000"
        let driver = h.token(.driver, "driver-1")
        let rider = h.token(.rider, "rider-1")

        // The rider reads it back; the driver reading the same trip does not.
        #expect(try h.trip(from: await h.call("GET", "/v1/trips/trip-1", token: rider)).pickupPIN == pin)
        #expect(try h.trip(from: await h.call("GET", "/v1/trips/active", token: rider)).pickupPIN == pin)
        #expect(try h.trip(from: await h.call("GET", "/v1/trips/trip-1", token: driver)).pickupPIN == nil)
        #expect(try h.trip(from: await h.call("GET", "/v1/drivers/me/trip", token: driver)).pickupPIN == nil)

        h.advance(seconds: 1)
        #expect(
            await h.call("POST", "/v1/trips/trip-1/events", token: driver, json: Self.event("arrived")).status == 200)

        // No PIN, then four wrong ones: each refused, counting down.
        var left: [Int?] = []
        for attempt in 0..<5 {
            let response = await h.call(
                "POST", "/v1/trips/trip-1/events", token: driver,
                json: Self.event("started", pin: attempt == 0 ? nil : wrong))
            #expect(response.status == 409)
            let error = try #require(h.error(from: response))
            #expect(error.code == .invalidState)
            #expect(error.reason == .wrongPickupPIN)
            left.append(error.attemptsLeft)
            if attempt == 4 { #expect(error.retryAfterSeconds == 60) }
        }
        #expect(left == [4, 3, 2, 1, 0])

        // Locked: even the right PIN is refused for the minute, and the trip has not started.
        h.advance(seconds: 59)
        let locked = await h.call(
            "POST", "/v1/trips/trip-1/events", token: driver, json: Self.event("started", pin: pin))
        #expect(locked.status == 409)
        #expect(h.error(from: locked)?.reason == .pickupPINLocked)
        #expect(h.error(from: locked)?.retryAfterSeconds == 1)
        #expect(try h.trip(from: await h.call("GET", "/v1/trips/trip-1", token: rider)).state == .driverArrived)

        h.advance(seconds: 1)
        // A fresh fix at the pickup, so the start is weighed and verified.
        #expect(await h.sendLocation("driver-1", seq: 2, at: Self.pickup).status == 200)
        let started = await h.call(
            "POST", "/v1/trips/trip-1/events", token: driver, json: Self.event("started", pin: pin))
        #expect(started.status == 200)
        #expect(try h.trip(from: started).state == .onTrip)
        #expect(try h.trip(from: started).pickupPIN == nil)
        // Once on the way the rider's trip no longer shows it.
        #expect(try h.trip(from: await h.call("GET", "/v1/trips/trip-1", token: rider)).pickupPIN == nil)

        let audit = try await h.services.trips.events(tripID: "trip-1").map(\.intent)
        #expect(
            audit == ["request", "offerAccepted", "arrived"] + Array(repeating: "wrongPickupPIN", count: 5) + [
                "started"
            ])
        #expect(refusals(h, "started", "wrong_pickup_pin") == 5)
        #expect(refusals(h, "started", "pickup_pin_locked") == 1)

        // No frame, to the driver or on the trip's topic (which share links read), ever carried the PIN.
        var seen = 0
        while seen < 12, let frame = await driverFrames.nextType() {
            #expect(!frame.message.text.contains("pickupPIN\""))
            seen += 1
            if frame.message.text.contains("onTrip") { break }
        }
        seen = 0
        while seen < 12, let frame = await riderFrames.nextType() {
            #expect(!frame.message.text.contains("pickupPIN\""))
            seen += 1
            if frame.message.text.contains("onTrip") { break }
        }
    }

    @Test func aCohortFlagRequiresThePINOfRidersWhoDidNotAsk() async throws {
        var configuration = ServerConfiguration()
        configuration.flags = .text(
            #"{"cohorts": [{"name": "pin-riders", "match": {"role": "rider"}, "flags": {"pickupPIN": true}}]}"#)
        let h = await ServerHarness(configuration: configuration)
        let created = try await Self.assigned(h, body: ServerHarness.requestBody(), driverAt: Self.pickup)
        #expect(created.requiresPickupPIN == true)
        #expect(created.pickupPIN.map(PickupPIN.isWellFormed) == true)
        h.advance(seconds: 1)
        let driver = h.token(.driver, "driver-1")
        #expect(
            await h.call("POST", "/v1/trips/trip-1/events", token: driver, json: Self.event("arrived")).status == 200)
        #expect(
            await h.call("POST", "/v1/trips/trip-1/events", token: driver, json: Self.event("started")).status == 409)
    }

    @Test func anOlderDriverAppOnATripWithoutAPINStartsAsBefore() async throws {
        let h = await ServerHarness()
        let created = try await Self.assigned(h, body: ServerHarness.requestBody(), driverAt: Self.pickup)
        #expect(created.requiresPickupPIN == nil)
        #expect(created.pickupPIN == nil)
        h.advance(seconds: 1)
        let driver = h.token(.driver, "driver-1")
        for event in ["arrived", "started"] {
            #expect(
                await h.call("POST", "/v1/trips/trip-1/events", token: driver, json: Self.event(event)).status == 200)
        }
    }

    @Test func aPINThatIsNotFourDigitsIsA400NamingTheField() async throws {
        let h = await ServerHarness()
        _ = try await Self.assigned(h, body: Self.pinRequest(), driverAt: Self.pickup)
        let response = await h.call(
            "POST", "/v1/trips/trip-1/events", token: h.token(.driver, "driver-1"),
            json: Self.event("started", pin: "12a4"))
        #expect(response.status == 400)
        #expect(h.error(from: response)?.field == "pin")
    }

    @Test func anArrivalFartherThan150mFromThePickupIsRefusedWithTheDistance() async throws {
        let h = await ServerHarness()
        // 0.0014 degrees north of the pickup: 155.67 m.
        _ = try await Self.assigned(
            h, body: ServerHarness.requestBody(), driverAt: Coordinate(lat: 43.7410, lng: 7.4276))
        let driver = h.token(.driver, "driver-1")
        h.advance(seconds: 1)
        let far = await h.call("POST", "/v1/trips/trip-1/events", token: driver, json: Self.event("arrived"))
        #expect(far.status == 409)
        let error = try #require(h.error(from: far))
        #expect(error.reason == .tooFarFromPickup)
        #expect(error.distanceMeters == 156)
        #expect(refusals(h, "arrived", "too_far_from_pickup") == 1)

        // 0.0013 degrees: 144.55 m, inside.
        #expect(await h.sendLocation("driver-1", seq: 2, at: Coordinate(lat: 43.7409, lng: 7.4276)).status == 200)
        #expect(
            await h.call("POST", "/v1/trips/trip-1/events", token: driver, json: Self.event("arrived")).status == 200)

        // The start is weighed too: the car drove 400 m off (at 10 m/s) before starting.
        h.advance(seconds: 25)
        #expect(await h.sendLocation("driver-1", seq: 3, at: Coordinate(lat: 43.7432, lng: 7.4276)).status == 200)
        let start = await h.call("POST", "/v1/trips/trip-1/events", token: driver, json: Self.event("started"))
        #expect(start.status == 409)
        #expect(h.error(from: start)?.distanceMeters == 400)
        let audit = try await h.services.trips.events(tripID: "trip-1").map(\.intent)
        #expect(audit == ["request", "offerAccepted", "arrived"])
    }

    @Test func withoutAFixFromTheLast30sTheArrivalIsAcceptedAndLoggedUnverified() async throws {
        let h = await ServerHarness()
        _ = try await Self.assigned(
            h, body: ServerHarness.requestBody(), driverAt: Coordinate(lat: 43.7432, lng: 7.4276))
        let driver = h.token(.driver, "driver-1")
        // Received 30 s ago: still evidence, and 400 m away.
        h.advance(seconds: 30)
        #expect(
            await h.call("POST", "/v1/trips/trip-1/events", token: driver, json: Self.event("arrived")).status == 409)
        h.advance(seconds: 0.5)
        #expect(
            await h.call("POST", "/v1/trips/trip-1/events", token: driver, json: Self.event("arrived")).status == 200)
        #expect(
            await h.call("POST", "/v1/trips/trip-1/events", token: driver, json: Self.event("started")).status == 200)
        // The intents keep the names every reader of the log matches on; the mark is beside them.
        let audit = try await h.services.trips.events(tripID: "trip-1").map { [$0.intent, $0.detail ?? "-"] }
        #expect(
            audit == [
                ["request", "-"], ["offerAccepted", "-"], ["arrived", "unverified"], ["started", "unverified"],
            ])
        // An unverified start is still when the fare's time began.
        h.advance(seconds: 120)
        let ended = await h.call("POST", "/v1/trips/trip-1/events", token: driver, json: Self.event("ended"))
        #expect(ended.status == 200)
        #expect(try h.trip(from: ended).receipt?.durationSeconds == 120)
    }
}
