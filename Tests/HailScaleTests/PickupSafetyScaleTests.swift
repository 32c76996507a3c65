import Foundation
import HailCore
import HailProtocol
import HailScale
import HailServer
import Testing

/// The pickup PIN and the position check on the scaled shape: two nodes on the shared PostgreSQL and Redis, the
/// wrong PINs sent to either, the driver's fix ingested by one and weighed by the other.
@Suite(
    "Pickup safety across two nodes",
    .enabled(
        if: ScaleServices.hasPostgres && ScaleServices.hasRedis, "start PostgreSQL and Redis with scripts/services.sh"))
struct PickupSafetyScaleTests {
    static let pinRequest = Data(
        (#"{"pickup": {"lat": 43.7396, "lng": 7.4276}, "dropoff": {"lat": 43.7314, "lng": 7.4197}, "#
            + #""productID": "economy", "requirePickupPIN": true}"#).utf8)

    static func event(_ name: String, pin: String? = nil) -> Data {
        let pinField = pin.map { #", "pin": "\#($0)""# } ?? ""
        return Data(#"{"event": "\#(name)", "idempotencyKey": "\#(UUID().uuidString)"\#(pinField)}"#.utf8)
    }

    static func error(_ response: APIResponse) -> APIError? {
        try? HailJSON.decode(ErrorBody.self, from: response.body).error
    }

    @Test func wrongPINsOnEitherNodeCountTogetherAndNoStartWithoutTheRightOneIsAccepted() async throws {
        try await CrossNodeTests.withTwoNodes { nodeA, nodeB in
            try await nodeA.online(driver: "driver-1", at: Coordinate(lat: 43.7400, lng: 7.4280))
            let created = await nodeA.call(
                "POST", "/v1/trips", token: nodeA.token(.rider, "rider-1"), body: Self.pinRequest,
                key: UUID().uuidString)
            #expect(created.status == 201)
            let trip = try HailJSON.decode(Trip.self, from: created.body)
            let pin = try #require(trip.pickupPIN)
            let wrong = pin == "0000" ? "1111" : "0000"
            let events = "/v1/trips/\(trip.id)/events"
            let accepted = await nodeB.call(
                "POST", "/v1/trips/\(trip.id)/accept", token: nodeB.token(.driver, "driver-1"), key: UUID().uuidString)
            #expect(accepted.status == 200)
            #expect(try HailJSON.decode(Trip.self, from: accepted.body).pickupPIN == nil)
            let readByDriver = await nodeB.call("GET", "/v1/trips/\(trip.id)", token: nodeB.token(.driver, "driver-1"))
            #expect(try HailJSON.decode(Trip.self, from: readByDriver.body).pickupPIN == nil)
            #expect(try HailJSON.decode(Trip.self, from: readByDriver.body).requiresPickupPIN == true)
            let readByRider = await nodeB.call("GET", "/v1/trips/\(trip.id)", token: nodeB.token(.rider, "rider-1"))
            #expect(try HailJSON.decode(Trip.self, from: readByRider.body).pickupPIN == pin)

            #expect(
                await nodeB.call("POST", events, token: nodeB.token(.driver, "driver-1"), body: Self.event("arrived"))
                    .status == 200)
            var left: [Int?] = []
            for attempt in 0..<5 {
                let node = attempt.isMultiple(of: 2) ? nodeA : nodeB
                let response = await node.call(
                    "POST", events, token: node.token(.driver, "driver-1"),
                    body: Self.event("started", pin: attempt == 0 ? nil : wrong))
                #expect(response.status == 409)
                #expect(Self.error(response)?.reason == .wrongPickupPIN)
                left.append(Self.error(response)?.attemptsLeft)
            }
            #expect(left == [4, 3, 2, 1, 0])
            let locked = await nodeB.call(
                "POST", events, token: nodeB.token(.driver, "driver-1"), body: Self.event("started", pin: pin))
            #expect(locked.status == 409)
            #expect(Self.error(locked)?.reason == .pickupPINLocked)
            #expect(Self.error(locked)?.retryAfterSeconds == 60)
            #expect(try await nodeA.services.trips.record(id: trip.id)?.trip.state == .driverArrived)

            nodeA.clock.advance(by: .seconds(60))
            nodeB.clock.advance(by: .seconds(60))
            // A fresh fix at the pickup: the start is weighed against position too.
            #expect(
                try await nodeA.send(driver: "driver-1", seq: 2, at: Coordinate(lat: 43.7397, lng: 7.4276)).status
                    == 200)
            let started = await nodeA.call(
                "POST", events, token: nodeA.token(.driver, "driver-1"), body: Self.event("started", pin: pin))
            #expect(started.status == 200)
            #expect(try HailJSON.decode(Trip.self, from: started.body).state == .onTrip)
            let audit = try await nodeB.services.trips.events(tripID: trip.id).map(\.intent)
            #expect(
                audit == ["request", "offerAccepted", "arrived"] + Array(repeating: "wrongPickupPIN", count: 5)
                    + ["started"])
        }
    }

    @Test func aFixIngestedByOneNodeRefusesAFarArrivalOnTheOther() async throws {
        try await CrossNodeTests.withTwoNodes { nodeA, nodeB in
            // 0.0036 degrees north of the pickup: 400.29 m.
            try await nodeA.online(driver: "driver-1", at: Coordinate(lat: 43.7432, lng: 7.4276))
            let created = await nodeA.call(
                "POST", "/v1/trips", token: nodeA.token(.rider, "rider-1"), body: Self.pinRequest,
                key: UUID().uuidString)
            let trip = try HailJSON.decode(Trip.self, from: created.body)
            let accepted = await nodeA.call(
                "POST", "/v1/trips/\(trip.id)/accept", token: nodeA.token(.driver, "driver-1"), key: UUID().uuidString)
            #expect(accepted.status == 200)
            let far = await nodeB.call(
                "POST", "/v1/trips/\(trip.id)/events", token: nodeB.token(.driver, "driver-1"),
                body: Self.event("arrived"))
            #expect(far.status == 409)
            #expect(Self.error(far)?.reason == .tooFarFromPickup)
            #expect(Self.error(far)?.distanceMeters == 400)
            #expect(try await nodeB.services.trips.record(id: trip.id)?.trip.state == .driverAssigned)
        }
    }
}
