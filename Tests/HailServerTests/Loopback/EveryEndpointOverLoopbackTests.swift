import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

/// Every REST route once through the real server: HailNet on 127.0.0.1, SQLite file (or PostgreSQL and
/// Redis), HMAC tokens, URLSession as the client, and the services' manual clock so dispatch timing stays
/// exact.
@Suite("Every endpoint over loopback", .serialized)
struct EveryEndpointOverLoopbackTests {
    @Test(arguments: Backend.allCases) func aTourOfEveryRoute(backend: Backend) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-tour-\(UUID().uuidString).db")
            .path
        let (h, server) = try await ServerHarness.loopback(databasePath: path, backend: backend)
        defer {
            Task {
                await server.shutdown()
                await h.closeBackends()
            }
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let rider = h.token(.rider, "rider-1")
        let near = h.token(.driver, "near")
        let far = h.token(.driver, "far")

        #expect(await h.call("GET", "/healthz").body == Data(#"{"status":"ok"}"#.utf8))
        let readiness = await h.call("GET", "/readyz")
        #expect(readiness.status == 200)
        #expect(
            try HailJSON.decode(ReadinessVerdict.self, from: readiness.body)
                == ReadinessVerdict(results: ["storage": nil], draining: false))
        let metrics = await h.call("GET", "/metrics", token: h.token(.operator, "ops"))
        #expect(metrics.status == 200)
        // The connections each event loop holds: this client's own connection is on one of them at least.
        let perLoop = String(decoding: metrics.body, as: UTF8.self).split(separator: "\n")
            .filter { $0.hasPrefix("hail_loop_connections{loop=") }
            .compactMap { Double($0.split(separator: " ").last ?? "") }
        #expect(perLoop.count == ProcessInfo.processInfo.activeProcessorCount)
        #expect(perLoop.reduce(0, +) >= 1)
        await h.onlineDriver("near", at: Coordinate(lat: 43.7400, lng: 7.4280))
        #expect(await h.call("POST", "/v1/drivers/me/status", token: far, json: #"{"online": true}"#).status == 200)
        let binary = try LocationBatchCodec.encode(
            LocationBatch(
                seq: 1, points: [LocationPoint(lat: 43.7486, lng: 7.4276, accuracy: 5, heading: 0, speed: 0, t: h.now)])
        )
        let binaryAck = await h.call(
            "POST", "/v1/drivers/me/locations", token: far, body: binary,
            headers: ["Content-Type": HailMediaType.locationBatch])
        #expect(binaryAck.body == Data(#"{"seq":1}"#.utf8))

        let estimates = await h.call(
            "POST", "/v1/estimates", token: rider,
            json: #"{"pickup": {"lat": 43.7396, "lng": 7.4276}, "dropoff": {"lat": 43.7314, "lng": 7.4197}}"#)
        #expect(try HailJSON.decode([Estimate].self, from: estimates.body).map(\.fare.amountMinor) == [700, 1100])
        let nearby = await h.call("GET", "/v1/drivers/nearby?lat=43.7396&lng=7.4276", token: rider)
        #expect(try HailJSON.decode([Coordinate].self, from: nearby.body).count == 2)

        let key = UUID().uuidString
        let created = await h.call("POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: key)
        #expect(created.status == 201)
        #expect(
            await h.call("POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: key).body
                == created.body)
        #expect(
            await h.call("POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(productID: "xl"), key: key)
                .status == 422)
        #expect(try h.trip(from: await h.call("GET", "/v1/trips/active", token: rider)).id == "trip-1")
        #expect(await h.call("GET", "/v1/trips/trip-1", token: rider).status == 200)
        #expect(await h.call("GET", "/v1/trips/trip-1", token: h.token(.rider, "rider-2")).status == 403)
        #expect(await h.call("GET", "/v1/drivers/me/trip", token: near).status == 204)

        // The nearest driver turns it down; the next one is offered at once and accepts.
        let decline = await h.call("POST", "/v1/trips/trip-1/decline", token: near)
        #expect(decline.status == 204)
        #expect(await h.call("POST", "/v1/trips/trip-1/accept", token: near, key: UUID().uuidString).status == 409)
        #expect(await h.call("POST", "/v1/trips/trip-1/accept", token: far, key: UUID().uuidString).status == 200)
        #expect(try h.trip(from: await h.call("GET", "/v1/drivers/me/trip", token: far)).state == .driverAssigned)

        let shared = try HailJSON.decode(
            ShareLinkResponse.self, from: await h.call("POST", "/v1/trips/trip-1/share", token: rider).body)
        #expect(await h.call("GET", "/share/\(shared.token)").status == 200)
        #expect(await h.call("GET", "/v1/trips/active", token: shared.token).status == 403)
        #expect(await h.call("GET", "/?access_token=\(h.token(.operator, "ops"))").status == 200)

        // The driver drives the kilometre to the pickup (in 30 s: the server's filter takes nothing over 200 km/h), as
        // "arrived" and "started" are weighed against where the car is.
        h.advance(seconds: 30)
        #expect(await h.sendLocation("far", seq: 2, at: ServerHarness.pickup).status == 200)
        for event in ["arrived", "started"] {
            let response = await h.call(
                "POST", "/v1/trips/trip-1/events", token: far,
                json: #"{"event": "\#(event)", "idempotencyKey": "\#(UUID().uuidString)"}"#)
            #expect(response.status == 200)
        }
        #expect(await h.call("POST", "/v1/trips/trip-1/cancel", token: rider, key: UUID().uuidString).status == 409)
        for seq: Int64 in [5, 7, 6] {
            h.advance(seconds: 3)
            // On the way from the pickup to the drop-off, south.
            await h.sendLocation("far", seq: seq, at: Coordinate(lat: 43.7396 - Double(seq) * 0.0001, lng: 7.4276))
        }
        #expect(await h.services.fleet.position(driverID: "far")?.seq == 7)
        let ended = await h.call(
            "POST", "/v1/trips/trip-1/events", token: far,
            json: #"{"event": "ended", "idempotencyKey": "\#(UUID().uuidString)"}"#)
        #expect(try h.trip(from: ended).state == .completed)
        #expect(await h.call("GET", "/share/\(shared.token)").status == 403)

        let second = await h.call(
            "POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: UUID().uuidString)
        let cancelled = await h.call(
            "POST", "/v1/trips/\(try h.trip(from: second).id)/cancel", token: rider, key: UUID().uuidString)
        #expect(try h.trip(from: cancelled).state == .cancelled)

        #expect(await h.call("GET", "/v1/nope", token: rider).status == 404)
        #expect(
            await h.call("POST", "/v1/trips", token: rider, body: Data(count: 2 << 20), key: UUID().uuidString).status
                == 413)
    }
}
