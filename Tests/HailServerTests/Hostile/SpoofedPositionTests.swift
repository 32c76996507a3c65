import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

/// Phones that lie about where and when they are: a teleport, a fix from the future, a driver sending
/// positions in another driver's name. The batch is acknowledged (so an honest app does not resend it
/// forever) and the lie moves nothing.
@Suite("Hostile: spoofed positions", .serialized)
struct SpoofedPositionTests {
    static let monaco = Coordinate(lat: 43.7400, lng: 7.4280)
    static let paris = Coordinate(lat: 48.8566, lng: 2.3522)

    @Test(arguments: Backend.allCases) func aTeleportIsAcknowledgedAndDropped(backend: Backend) async throws {
        let server = try await HostileServer.start(backend: backend)
        try await server.onlineDriver("jumper", at: Self.monaco)
        let ack = await server.sendLocation("jumper", seq: 2, at: Self.paris, t: server.now.addingTimeInterval(10))
        #expect(ack.status == 200)
        #expect(ack.body == Data(#"{"seq":2}"#.utf8))
        let position = await server.services.fleet.position(driverID: "jumper")
        #expect(position?.seq == 1)
        #expect(position?.coordinate == Self.monaco)
        #expect(server.services.metrics.registry.render().contains(#"result="impossibleSpeed""#))
        // The next honest fix, near the last accepted one, moves the car.
        let near = Coordinate(lat: Self.monaco.lat + 0.0001, lng: Self.monaco.lng)
        #expect(
            await server.sendLocation("jumper", seq: 3, at: near, t: server.now.addingTimeInterval(11)).status == 200)
        #expect(await server.services.fleet.position(driverID: "jumper")?.seq == 3)
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func aFixFromTheFutureIsDroppedAndDoesNotFreezeTheCar(backend: Backend)
        async throws
    {
        let server = try await HostileServer.start(backend: backend)
        try await server.onlineDriver("prophet", at: Self.monaco)
        let ahead = Coordinate(lat: Self.monaco.lat + 0.0001, lng: Self.monaco.lng)
        let ack = await server.sendLocation("prophet", seq: 2, at: ahead, t: server.now.addingTimeInterval(3600))
        #expect(ack.body == Data(#"{"seq":2}"#.utf8))
        #expect(await server.services.fleet.position(driverID: "prophet")?.seq == 1)
        #expect(server.services.metrics.registry.render().contains(#"result="future""#))
        // A phone a little ahead (within the allowed clock error) is believed...
        let skewed = await server.sendLocation("prophet", seq: 3, at: ahead, t: server.now.addingTimeInterval(120))
        #expect(skewed.status == 200)
        #expect(await server.services.fleet.position(driverID: "prophet")?.seq == 3)
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func aDriverCannotReportForAnotherDriver(backend: Backend) async throws {
        let server = try await HostileServer.start(backend: backend)
        try await server.onlineDriver("honest", at: Self.monaco)
        try await server.onlineDriver("mallory", at: Coordinate(lat: 43.7300, lng: 7.4200))
        let trip = try await server.assignedTrip(rider: "watcher", driver: "honest")
        let before = await server.services.fleet.position(driverID: "honest")
        // A body naming the other driver: the name is ignored, the token decides whose position it is.
        let spoof = """
            {"driverID": "honest", "driverId": "honest", "seq": 2, "points": [{"lat": 43.7301, "lng": 7.4200,
            "accuracy": 5, "heading": 0, "speed": 3, "t": "\(try WireDate.format(server.now.addingTimeInterval(1)))"}]}
            """
        let ack = await server.call(
            "POST", "/v1/drivers/me/locations", token: server.token(.driver, "mallory"), json: spoof)
        #expect(ack.status == 200)
        #expect(await server.services.fleet.position(driverID: "honest") == before)
        #expect(await server.services.fleet.position(driverID: "mallory")?.seq == 2)
        let seen = try HailJSON.decode(
            Trip.self,
            from: await server.call("GET", "/v1/trips/\(trip.id)", token: server.token(.rider, "watcher")).body)
        #expect(seen.driverLocation == before)
        // Nor act on the other driver's trip.
        let event = await server.call(
            "POST", "/v1/trips/\(trip.id)/events", token: server.token(.driver, "mallory"),
            json: #"{"event": "arrived", "idempotencyKey": "\#(UUID().uuidString)"}"#)
        #expect(event.status == 403)
        #expect(server.error(event)?.message == "trip \(trip.id) is not yours")
        #expect(try await server.services.trips.record(id: trip.id)?.trip.state == .driverAssigned)
        await server.stop()
    }
}
