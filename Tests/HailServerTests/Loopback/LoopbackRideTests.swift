import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

@Suite("The real server on loopback", .serialized)
struct LoopbackRideTests {
    static let request =
        #"{"pickup": {"lat": 43.7396, "lng": 7.4276}, "dropoff": {"lat": 43.7314, "lng": 7.4197}, "productID": "economy"}"#

    static func location(seq: Int64, lat: Double, lng: Double, t: Date = Date()) -> DriverClientFrame {
        .location(
            LocationBatch(
                seq: seq, points: [LocationPoint(lat: lat, lng: lng, accuracy: 5, heading: 180, speed: 8, t: t)]))
    }

    @Test(arguments: Backend.allCases) func aFullRideOverHTTPAndWebSockets(backend: Backend) async throws {
        let server = try await LoopbackServer.start(backend: backend)
        defer { Task { await server.stop() } }
        try await Self.rideToTheEnd(on: server)
    }

    /// A driver online, a rider's request offered and accepted, the driver's move streamed to the rider, then
    /// arrived, started and ended, each change reaching the rider's stream, which closes with 1000 at the end.
    static func rideToTheEnd(on server: LoopbackServer) async throws {
        let driverToken = server.token(.driver, "driver-1")
        let riderToken = server.token(.rider, "rider-1")

        let driver = try await server.socket("/v1/drivers/me/live", token: driverToken)
        _ = try await driver.next("hello", as: DriverServerFrame.self)
        #expect(
            try await server.http("POST", "/v1/drivers/me/status", token: driverToken, body: #"{"online": true}"#)
                .status == 200)
        let start = Date()
        try driver.send(location(seq: 1, lat: 43.7400, lng: 7.4280, t: start))
        guard case .ack(let ack) = try await driver.next("ack", as: DriverServerFrame.self) else {
            throw LoopbackError(description: "no ack")
        }
        #expect(ack.seq == 1)

        let created = try await server.http(
            "POST", "/v1/trips", token: riderToken, body: request, key: UUID().uuidString)
        #expect(created.status == 201)
        let trip = try HailJSON.decode(Trip.self, from: created.body)
        guard case .offer(let offer) = try await driver.next("offer", as: DriverServerFrame.self) else {
            throw LoopbackError(description: "no offer")
        }
        #expect(offer.trip.id == trip.id)

        let rider = try await server.socket("/v1/trips/\(trip.id)/live", token: riderToken)
        _ = try await rider.next("hello", as: RiderServerFrame.self)
        guard case .tripUpdated(let first) = try await rider.next("tripUpdated", as: RiderServerFrame.self) else {
            return
        }
        #expect(first.state == .searching)

        #expect(
            try await server.http("POST", "/v1/trips/\(trip.id)/accept", token: driverToken, key: UUID().uuidString)
                .status == 200)
        guard case .tripUpdated(let assigned) = try await rider.next("tripUpdated", as: RiderServerFrame.self) else {
            return
        }
        #expect(assigned.state == .driverAssigned)
        #expect(assigned.version == 2)

        try driver.send(location(seq: 2, lat: 43.7399, lng: 7.4279, t: start.addingTimeInterval(2)))
        guard case .driverMoved(let moved) = try await rider.next("driverMoved", as: RiderServerFrame.self) else {
            return
        }
        #expect(moved.seq == 2)
        #expect(moved.coordinate == Coordinate(lat: 43.7399, lng: 7.4279))
        #expect(moved.etaSeconds != nil)

        for event in ["arrived", "started", "ended"] {
            let response = try await server.http(
                "POST", "/v1/trips/\(trip.id)/events", token: driverToken,
                body: #"{"event": "\#(event)", "idempotencyKey": "\#(UUID().uuidString)"}"#)
            #expect(response.status == 200, "\(event)")
        }
        var states: [TripState] = []
        while states.last != .completed {
            guard case .tripUpdated(let update) = try await rider.next("tripUpdated", as: RiderServerFrame.self) else {
                continue
            }
            states.append(update.state)
            if update.state == .completed { #expect(update.fare == Money(amountMinor: 700, currency: "EUR")) }
        }
        #expect(states == [.driverArrived, .onTrip, .completed])
        let close = await rider.closed()
        #expect(close.code == 1000)
        #expect(close.reason == "trip ended")
        driver.connection.close()
    }

    @Test(arguments: Backend.allCases) func anotherRidersTripStreamIsClosedWith4003(backend: Backend) async throws {
        let server = try await LoopbackServer.start(backend: backend)
        defer { Task { await server.stop() } }
        let created = try await server.http(
            "POST", "/v1/trips", token: server.token(.rider, "rider-b"), body: Self.request, key: UUID().uuidString)
        let trip = try HailJSON.decode(Trip.self, from: created.body)
        let intruder = try await server.socket("/v1/trips/\(trip.id)/live", token: server.token(.rider, "rider-a"))
        let close = await intruder.closed()
        #expect(close.code == 4003)
        #expect(close.reason == "trip \(trip.id) is not yours")
        let stranger = try await server.socket("/v1/trips/\(trip.id)/live", token: "forged")
        #expect(await stranger.closed().code == 4001)
    }

    @Test(arguments: Backend.allCases) func aGarbageFrameFromADriverClosesWith4008AndAReason(backend: Backend)
        async throws
    {
        let server = try await LoopbackServer.start(backend: backend)
        defer { Task { await server.stop() } }
        let driver = try await server.socket("/v1/drivers/me/live", token: server.token(.driver, "driver-1"))
        _ = try await driver.next("hello", as: DriverServerFrame.self)
        driver.connection.send(text: #"{"type": "teleport", "to": "mars"}"#)
        let close = await driver.closed()
        #expect(close.code == 4008)
        #expect(close.reason.contains("teleport"))
    }

    @Test(arguments: Backend.allCases) func aSecondDriverConnectionSupersedesTheFirst(backend: Backend) async throws {
        let server = try await LoopbackServer.start(backend: backend)
        defer { Task { await server.stop() } }
        let token = server.token(.driver, "driver-1")
        let first = try await server.socket("/v1/drivers/me/live", token: token)
        _ = try await first.next("hello", as: DriverServerFrame.self)
        let second = try await server.socket("/v1/drivers/me/live", token: token)
        _ = try await second.next("hello", as: DriverServerFrame.self)
        #expect(await first.closed().code == 4010)
    }

    @Test(arguments: Backend.allCases) func badInputOverTheWireGetsTheDocumentedErrors(backend: Backend) async throws {
        let server = try await LoopbackServer.start(backend: backend)
        defer { Task { await server.stop() } }
        let rider = server.token(.rider, "rider-1")
        let huge = String(repeating: " ", count: 10 << 20)
        let tooLarge = try await server.http("POST", "/v1/trips", token: rider, body: huge, key: UUID().uuidString)
        #expect(tooLarge.status == 413)
        #expect(try await server.http("GET", "/v1/unknown", token: rider).status == 404)
        #expect(try await server.http("GET", "/v1/trips/active").status == 401)
        let malformed = try await server.http("POST", "/v1/trips", token: rider, body: "{", key: UUID().uuidString)
        #expect(malformed.status == 400)
        #expect(String(decoding: malformed.body, as: UTF8.self).contains(#""code":"invalid_json""#))
        #expect(try await server.http("GET", "/v1/trips/active", token: rider).status == 204)
    }
}
