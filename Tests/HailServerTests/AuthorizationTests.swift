import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

@Suite("Who may do what")
struct AuthorizationTests {
    @Test func riderACannotReadCancelShareOrStreamRiderBsTrip() async throws {
        let h = await ServerHarness()
        await h.call(
            "POST", "/v1/trips", token: h.token(.rider, "rider-b"), json: ServerHarness.requestBody(),
            key: UUID().uuidString)
        let a = h.token(.rider, "rider-a")
        let read = await h.call("GET", "/v1/trips/trip-1", token: a)
        let cancel = await h.call("POST", "/v1/trips/trip-1/cancel", token: a, key: UUID().uuidString)
        let share = await h.call("POST", "/v1/trips/trip-1/share", token: a)
        #expect([read.status, cancel.status, share.status] == [Int](repeating: 403, count: 3))
        #expect(h.error(from: read)?.message == "trip trip-1 is not yours")
        let streams = LiveStreams(services: h.services)
        await #expect(throws: APIError(code: .forbidden, message: "trip trip-1 is not yours")) {
            try await streams.plan(method: "GET", target: "/v1/trips/trip-1/live?access_token=\(a)", headers: [:])
        }
        #expect(try await h.services.trips.record(id: "trip-1")?.trip.state == .searching)
    }

    @Test func driverXCannotActOnDriverYsTrip() async throws {
        let h = await ServerHarness()
        try await RideFlowTests.tripOnTrip(h)
        let x = h.token(.driver, "driver-x")
        let ended = await h.call(
            "POST", "/v1/trips/trip-1/events", token: x,
            json: #"{"event": "ended", "idempotencyKey": "\#(UUID().uuidString)"}"#)
        let accept = await h.call("POST", "/v1/trips/trip-1/accept", token: x, key: UUID().uuidString)
        let read = await h.call("GET", "/v1/trips/trip-1", token: x)
        #expect(ended.status == 403)
        #expect(accept.status == 409)
        #expect(read.status == 403)
        #expect(try await h.services.trips.record(id: "trip-1")?.trip.state == .onTrip)
    }

    @Test func aShareTokenReadsOneTripAndNothingElseAndStopsWhenItCompletes() async throws {
        let h = await ServerHarness()
        try await RideFlowTests.tripOnTrip(h)
        let shared = await h.call("POST", "/v1/trips/trip-1/share", token: h.token(.rider, "rider-1"))
        #expect(shared.status == 200)
        let link = try HailJSON.decode(ShareLinkResponse.self, from: shared.body)
        #expect(link.expiresAt == h.now.addingTimeInterval(4 * 3600))
        #expect(link.url.absoluteString == "http://localhost:8080/share/\(link.token)")
        let token = link.token

        #expect(await h.call("GET", "/v1/trips/trip-1", token: token).status == 200)
        let streams = LiveStreams(services: h.services)
        let plan = try await streams.plan(
            method: "GET", target: "/v1/trips/trip-1/live?access_token=\(token)", headers: [:])
        guard case .trip(let id, let principal, _, _) = plan else {
            Issue.record("a share token should watch its trip")
            return
        }
        #expect(id == "trip-1")
        #expect(principal.role == .share)
        #expect(await h.call("GET", "/share/\(token)").status == 200)
        let elsewhere: [(String, String)] = [
            ("GET", "/v1/trips/active"), ("POST", "/v1/trips/trip-1/cancel"), ("POST", "/v1/trips/trip-1/share"),
            ("POST", "/v1/estimates"), ("GET", "/v1/drivers/nearby?lat=43.7&lng=7.4"), ("POST", "/v1/trips"),
            ("POST", "/v1/drivers/me/status"), ("POST", "/v1/drivers/me/locations"), ("GET", "/v1/drivers/me/trip"),
            ("POST", "/v1/trips/trip-1/accept"), ("POST", "/v1/trips/trip-1/events"), ("GET", "/v1/trips/trip-2"),
            ("GET", "/"),
        ]
        for (method, path) in elsewhere {
            let response = await h.call(method, path, token: token, json: "{}", key: UUID().uuidString)
            #expect(response.status == 403, "\(method) \(path)")
        }

        await h.call(
            "POST", "/v1/trips/trip-1/events", token: h.token(.driver, "driver-1"),
            json: #"{"event": "ended", "idempotencyKey": "\#(UUID().uuidString)"}"#)
        let afterEnd = await h.call("GET", "/v1/trips/trip-1", token: token)
        #expect(afterEnd.status == 403)
        #expect(h.error(from: afterEnd)?.message == "this share link ended with the trip")
        #expect(await h.call("GET", "/share/\(token)").status == 403)
    }

    @Test func expiredAndForgedTokensAre401() async {
        let h = await ServerHarness()
        let expired = h.token(.rider, "rider-1", ttl: 10)
        h.advance(seconds: 10)
        let response = await h.call("GET", "/v1/trips/active", token: expired)
        #expect(response.status == 401)
        #expect(h.error(from: response)?.message == "the token has expired")
        var forged = h.token(.rider, "rider-1")
        forged.removeLast(2)
        forged += "AA"
        #expect(
            h.error(from: await h.call("GET", "/v1/trips/active", token: forged))?.message
                == "the token's signature is not valid")
        #expect(
            h.error(from: await h.call("GET", "/v1/trips/active", token: "nonsense"))?.message
                == "the token is malformed")
        #expect(h.error(from: await h.call("GET", "/v1/trips/active"))?.message == "send Authorization: Bearer <token>")
    }

    @Test(arguments: [
        ("POST", "/v1/estimates", Role.driver), ("POST", "/v1/drivers/me/status", .rider), ("GET", "/", .rider),
        ("POST", "/v1/trips/trip-9/accept", .rider), ("GET", "/v1/drivers/me/trip", .rider),
    ])
    func theWrongRoleIs403(method: String, path: String, role: Role) async {
        let h = await ServerHarness()
        let response = await h.call(method, path, token: h.token(role, "someone"), json: "{}", key: UUID().uuidString)
        #expect(response.status == 403)
        #expect(h.error(from: response)?.code == .forbidden)
    }
}

@Suite("Bad input gets the documented 4xx and changes nothing")
struct BadInputTests {
    @Test(arguments: [
        (#"{"pickup": "#, 400, "invalid_json", nil as String?),
        (
            #"{"pickup": {"lat": "north", "lng": 7.42}, "dropoff": {"lat": 43.73, "lng": 7.41}, "productID": "economy"}"#,
            400, "invalid_field", "pickup.lat"
        ),
        (
            #"{"pickup": {"lat": 91, "lng": 7.42}, "dropoff": {"lat": 43.73, "lng": 7.41}, "productID": "economy"}"#,
            400, "invalid_field", "pickup.lat"
        ),
        (
            #"{"pickup": {"lat": NaN, "lng": 7.42}, "dropoff": {"lat": 43.73, "lng": 7.41}, "productID": "economy"}"#,
            400, "invalid_json", nil
        ),
        (#"{"dropoff": {"lat": 43.73, "lng": 7.41}, "productID": "economy"}"#, 400, "missing_field", "pickup"),
        (
            #"{"pickup": {"lat": 43.7, "lng": 7.42}, "dropoff": {"lat": 43.73, "lng": 7.41}, "productID": "limo"}"#,
            400, "invalid_field", "productID"
        ),
    ])
    func aBadTripRequest(body: String, status: Int, code: String, field: String?) async throws {
        let h = await ServerHarness()
        let response = await h.call(
            "POST", "/v1/trips", token: h.token(.rider, "rider-1"), json: body, key: UUID().uuidString)
        #expect(response.status == status)
        #expect(h.error(from: response)?.code.rawValue == code)
        #expect(h.error(from: response)?.field == field)
        #expect(try await h.services.trips.activeRecords().isEmpty)
    }

    @Test func latitude91NamesTheField() async {
        let h = await ServerHarness()
        let response = await h.call(
            "POST", "/v1/trips", token: h.token(.rider, "rider-1"),
            json:
                #"{"pickup": {"lat": 91, "lng": 7.42}, "dropoff": {"lat": 43.73, "lng": 7.41}, "productID": "economy"}"#,
            key: UUID().uuidString)
        #expect(
            String(decoding: response.body, as: UTF8.self)
                == #"{"error":{"code":"invalid_field","field":"pickup.lat","message":"lat must be between -90 and 90"}}"#
        )
    }

    @Test func aTenMegabyteBodyIs413() async throws {
        let h = await ServerHarness()
        let body = Data(repeating: 0x20, count: 10 << 20)
        let response = await h.call(
            "POST", "/v1/trips", token: h.token(.rider, "rider-1"), body: body, key: UUID().uuidString)
        #expect(response.status == 413)
        #expect(h.error(from: response)?.code == .payloadTooLarge)
        #expect(try await h.services.trips.activeRecords().isEmpty)
    }

    @Test func anUnknownRouteIs404AndAWrongMethod405() async {
        let h = await ServerHarness()
        #expect(await h.call("GET", "/v1/nope").status == 404)
        #expect(await h.call("DELETE", "/v1/trips").status == 405)
    }

    @Test("a 405 names the methods the path takes in Allow (RFC 9110), before any token is asked for")
    func aWrongMethodListsTheAllowedOnes() async {
        let h = await ServerHarness()
        let trips = await h.call("TRACE", "/v1/trips")
        #expect(trips.status == 405)
        #expect(trips.headers["Allow"] == "POST")
        #expect(h.error(from: trips)?.code == .methodNotAllowed)
        let live = await h.call("DELETE", "/v1/trips/t-1/live")
        #expect(live.status == 405)
        #expect(live.headers["Allow"] == "GET")
        let metrics = await h.call("CONNECT", "/metrics")
        #expect(metrics.headers["Allow"] == "GET")
    }

    @Test("a method that is no HTTP method at all is 501, with no Allow")
    func anUnknownMethodIs501() async {
        let h = await ServerHarness()
        let response = await h.call("BREW", "/v1/trips")
        #expect(response.status == 501)
        #expect(response.headers["Allow"] == nil)
        #expect(h.error(from: response)?.code == .notImplemented)
        #expect(h.error(from: response)?.message == "BREW is not an HTTP method this server knows")
    }

    @Test func aMissingOrMalformedIdempotencyKeyIs400() async throws {
        let h = await ServerHarness()
        let rider = h.token(.rider, "rider-1")
        let missing = await h.call("POST", "/v1/trips", token: rider, json: ServerHarness.requestBody())
        let malformed = await h.call(
            "POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: "not-a-uuid")
        #expect(missing.status == 400)
        #expect(malformed.status == 400)
        #expect(h.error(from: missing)?.field == "Idempotency-Key")
        #expect(try await h.services.trips.activeRecords().isEmpty)
    }

    @Test func aWebSocketRouteOverPlainHTTPIsExplained() async {
        let h = await ServerHarness()
        let response = await h.call("GET", "/v1/drivers/me/live", token: h.token(.driver, "d"))
        #expect(response.status == 426)
        #expect(response.headers[HailHeader.upgrade] == "websocket")
        #expect(h.error(from: response)?.code == .upgradeRequired)
    }
}
