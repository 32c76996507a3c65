import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

/// The resync size on `/metrics`: what a trip stream resumed after a cursor replays, over real sockets.
@Suite("Resync size on the trip stream", .serialized)
struct ResyncSizeTests {
    @Test func aResumedStreamCountsItsReplayedFramesAndTheTripVersionsItsAppMissed() async throws {
        let server = try await LoopbackServer.start(backend: .embedded)
        defer { Task { await server.stop() } }
        let driverToken = server.token(.driver, "driver-1")
        let riderToken = server.token(.rider, "rider-1")
        let driver = try await server.socket("/v1/drivers/me/live", token: driverToken)
        _ = try await driver.next("hello", as: DriverServerFrame.self)
        _ = try await server.http("POST", "/v1/drivers/me/status", token: driverToken, body: #"{"online": true}"#)
        let start = Date()
        try driver.send(LoopbackRideTests.location(seq: 1, lat: 43.7400, lng: 7.4280, t: start))
        _ = try await driver.next("ack", as: DriverServerFrame.self)
        let created = try await server.http(
            "POST", "/v1/trips", token: riderToken, body: LoopbackRideTests.request, key: UUID().uuidString)
        let trip = try HailJSON.decode(Trip.self, from: created.body)
        _ = try await driver.next("offer", as: DriverServerFrame.self)
        _ = try await server.http("POST", "/v1/trips/\(trip.id)/accept", token: driverToken, key: UUID().uuidString)
        // Two seconds on by the phone's clock: 13 m is a drive, not a jump.
        try driver.send(LoopbackRideTests.location(seq: 2, lat: 43.7399, lng: 7.4279, t: start.addingTimeInterval(2)))
        _ = try await driver.next("ack", as: DriverServerFrame.self)

        // A first open, with no cursor, is no resync.
        let first = try await server.socket("/v1/trips/\(trip.id)/live", token: riderToken)
        _ = try await first.next("driverMoved", as: RiderServerFrame.self)
        // The app showed version 1 (searching) and position 1: the trip (version 2) and position 2 are replayed.
        let resumed = try await server.socket("/v1/trips/\(trip.id)/live?after=1&version=1", token: riderToken)
        _ = try await resumed.next("driverMoved", as: RiderServerFrame.self)
        // Up to date on both: only the trip is replayed, no version missed.
        let current = try await server.socket("/v1/trips/\(trip.id)/live?after=2&version=2", token: riderToken)
        _ = try await current.next("tripUpdated", as: RiderServerFrame.self)
        let (_, body) = try await server.http("GET", "/metrics", token: server.token(.operator, "ops"))
        let text = String(decoding: body, as: UTF8.self)
        let segment = #"{role="rider",version="unknown",device="unknown",region="unknown"}"#
        #expect(text.contains("hail_resyncs_total\(segment) 2"))
        #expect(text.contains("hail_resync_frames_total\(segment) 3"))
        #expect(text.contains("hail_resync_trip_versions_total\(segment) 1"))
        // A version that is not a number is refused before the stream opens.
        let bad = try await server.socket("/v1/trips/\(trip.id)/live?after=1&version=new", token: riderToken)
        let close = await bad.closed()
        #expect(close.code == 4008)
        #expect(close.reason.contains("version must be a non-negative integer"))
        for socket in [driver, first, resumed, current] { socket.connection.close() }
    }
}
