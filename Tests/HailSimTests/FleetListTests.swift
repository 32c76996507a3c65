import Foundation
import HailClient
import HailCore
import HailProtocol
import HailServer
import Testing

@Suite("The operator's map lists every online driver", .serialized)
struct FleetListTests {
    /// Goes online and sends one fix at `spot` over the real HTTP API.
    static func driver(_ id: String, at spot: Coordinate, online: Bool, server: SimServer) async throws {
        let api = DriverHTTPAPI(transport: HTTPTransport(baseURL: server.baseURL, token: server.minter(.driver, id)))
        try await api.setStatus(DriverStatusRequest(online: true))
        let fix = LocationPoint(lat: spot.lat, lng: spot.lng, accuracy: 5, heading: 0, speed: 0, t: Date())
        _ = try await api.sendLocations(LocationBatch(seq: 1, points: [fix]))
        if !online { try await api.setStatus(DriverStatusRequest(online: false)) }
    }

    @Test func anIdleCarThirtyKilometresFromTheCentreIsOnTheMap() async throws {
        let server = try await SimServer.start()
        let monaco = Coordinate(lat: 43.7384, lng: 7.4246)
        let antibes = Coordinate(lat: 43.5808, lng: 7.1239)
        try await Self.driver("near", at: monaco, online: true, server: server)
        try await Self.driver("far", at: antibes, online: true, server: server)
        try await Self.driver("gone-home", at: monaco, online: false, server: server)
        let answer = try await server.get(Routes.fleet.template, token: server.minter(.operator, "operator-test"))
        await server.stop()

        #expect(monaco.distance(to: antibes) > 29_000)
        #expect(answer.status == 200)
        let snapshot = try HailJSON.decode(FleetSnapshot.self, from: answer.body)
        #expect(snapshot.cars.map(\.driverID) == ["far", "near"])
        #expect(snapshot.cars.allSatisfy { $0.online && $0.tripID == nil })
        let far = try #require(snapshot.cars.first)
        #expect(far.location.coordinate.distance(to: antibes) < 1)
    }
}
