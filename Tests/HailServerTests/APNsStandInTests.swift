import Foundation
import HailAPNs
import HailCore
import HailProcess
import HailProtocol
import HailServer
import HailTesting
import HailTime
import Testing

@Suite(
    "APNs over HTTP/2 to a stand-in on loopback", .serialized,
    .enabled(if: APNsStandIn.available, "needs python3-h2 and python3-cryptography (scripts/setup.sh)"))
struct APNsStandInTests {
    static let t0 = Date(timeIntervalSince1970: 1_796_130_000)
    static let keyID = "KEY1234567"
    static let teamID = "TEAM123456"

    static func token(_ byte: String) -> String { String(repeating: byte, count: 32) }

    static func configuration(_ standIn: APNsStandIn) throws -> APNsPushSender.Configuration {
        APNsPushSender.Configuration(
            key: try APNsSigningKey.load(path: standIn.keyPath), keyID: keyID, teamID: teamID,
            topic: "com.example.rider", host: standIn.host, caFile: standIn.caPath)
    }

    static func arrival(rider: String, now: Date) -> PushDelivery {
        var trip = Trip(
            id: "trip-\(rider)", state: .driverArrived, pickup: Coordinate(lat: 43.7396, lng: 7.4276),
            dropoff: Coordinate(lat: 43.7314, lng: 7.4197), productID: .economy, version: 4)
        trip.driver = Driver(
            id: "driver-1", name: "Asha", carModel: "Toyota Prius", plate: "HL-204-AB", rating: 4.9,
            photoURL: URL(string: "https://example.invalid/asha.jpg")!)
        return PushDelivery(event: .driverArrived, record: TripRecord(trip: trip, riderID: rider), now: now)
    }

    @Test func everyAnswerIsCarriedOutOnTheRealWire() async throws {
        let answers: [String: [(Int, String?)]] = [
            Self.token("b2"): [(410, "Unregistered")],
            Self.token("c3"): [(400, "BadDeviceToken")],
            Self.token("d4"): [(429, "TooManyRequests")],
            Self.token("e5"): [(500, "InternalServerError")],
            Self.token("f6"): [(403, "ExpiredProviderToken")],
        ]
        let standIn = try APNsStandIn(answers: answers)
        defer { standIn.stop() }
        let clock = ManualClock()
        let time = Timeline(clock: clock, origin: Self.t0)
        let store = MemoryTripStore()
        let metrics = ServerMetrics()
        let riders = ["ok": "a1", "gone": "b2", "bad": "c3", "busy": "d4", "failing": "e5", "expired": "f6"]
        for (rider, byte) in riders {
            await store.saveDevice(
                DeviceTokenRecord(
                    principal: "rider:\(rider)", token: Self.token(byte), environment: .production, bundleID: nil,
                    updatedAt: Self.t0))
        }
        let sender = APNsPushSender(
            configuration: try Self.configuration(standIn), tokens: store, metrics: metrics, time: time, log: nil)

        try await sender.send(Self.arrival(rider: "ok", now: time.now()))
        try await sender.send(Self.arrival(rider: "gone", now: time.now()))
        try await sender.send(Self.arrival(rider: "bad", now: time.now()))
        // 429 and 500 are retried after 1 s on the server's clock, off the commit path.
        for rider in ["busy", "failing"] {
            let sending = Task { try await sender.send(Self.arrival(rider: rider, now: time.now())) }
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .seconds(1))
            try await sending.value
        }
        // 25 minutes on, the provider token is still reused; APNs calls it expired: renewed once, sent again.
        clock.advance(by: .seconds(25 * 60))
        try await sender.send(Self.arrival(rider: "expired", now: time.now()))

        let requests = try standIn.requests()
        #expect(requests.map(\.token) == ["a1", "b2", "c3", "d4", "d4", "e5", "e5", "f6", "f6"].map(Self.token))
        #expect(requests.map(\.status) == [200, 410, 400, 429, 200, 500, 200, 403, 200])
        // One HTTP/2 connection for every push.
        #expect(requests.allSatisfy { $0.protocol == "h2" && $0.connection == 1 })
        #expect(await sender.statistics == APNsPushSender.Statistics(requests: 9, connectionsOpened: 1, notHTTP2: 0))
        // Every JWT is ES256 with the key's id and the team, and verifies against the key's public half.
        #expect(requests.allSatisfy { $0.jwtValid })
        #expect(requests.allSatisfy { $0.jwtHeader == .init(alg: "ES256", kid: Self.keyID) })
        let issued = requests.map { $0.jwtClaims?.iat ?? 0 }
        let renewedAt = Int(Self.t0.timeIntervalSince1970) + 1 + 1 + 25 * 60
        #expect(issued == Array(repeating: 1_796_130_000, count: 8) + [renewedAt])
        #expect(requests.allSatisfy { $0.jwtClaims?.iss == Self.teamID })

        let first = try #require(requests.first)
        let jwt = try #require(first.header("authorization"))
        #expect(
            first.headers == [
                [":method", "POST"], [":path", "/3/device/" + Self.token("a1")], [":scheme", "https"],
                [":authority", standIn.host], ["authorization", jwt], ["apns-push-type", "alert"],
                ["apns-topic", "com.example.rider"], ["apns-priority", "10"], ["apns-expiration", "1796130600"],
                ["apns-collapse-id", "trip-ok"], ["content-type", "application/json"], ["content-length", "204"],
            ])
        #expect(
            first.body
                == #"{"aps":{"alert":{"body":"Look for Toyota Prius HL-204-AB","title":"Asha is here"},"#
                + #""interruption-level":"time-sensitive","sound":"default","thread-id":"trip-ok"},"#
                + #""event":"driverArrived","tripID":"trip-ok"}"#)
        #expect(first.body.utf8.count == 204)

        // 410 and BadDeviceToken: the token is forgotten; the others stay.
        #expect(await store.device(principal: "rider:gone") == nil)
        #expect(await store.device(principal: "rider:bad") == nil)
        #expect(await store.device(principal: "rider:busy")?.token == Self.token("d4"))
        let registry = metrics.registry
        #expect(registry.value("hail_push_total", labels: ["type": "alert", "result": "delivered"]) == 4)
        #expect(registry.value("hail_push_total", labels: ["type": "alert", "result": "token_removed"]) == 2)
        #expect(registry.value("hail_push_total", labels: ["type": "alert", "result": "retried"]) == 2)
        #expect(
            registry.value("hail_push_total", labels: ["type": "alert", "result": "provider_token_renewed"]) == 1)
        #expect(registry.render().contains(#"hail_push_total{type="alert",result="delivered"} 4"#))
    }

    @Test func aRideDeliversItsAlertsAndLiveActivityUpdatesThenOneEnd() async throws {
        let standIn = try APNsStandIn()
        defer { standIn.stop() }
        var configuration = ServerConfiguration()
        configuration.pushSender = APNsPushSender.factory(try Self.configuration(standIn), log: nil)
        let h = await ServerHarness(configuration: configuration)
        let device = Self.token("a1")
        let activity = Self.token("b2")
        let rider = h.token(.rider, "rider-1")
        let registered = await h.call(
            "PUT", "/v1/devices/me", token: rider,
            json: #"{"platform": "ios", "token": "\#(device)", "environment": "production"}"#)
        #expect(registered.status == 204)
        await h.onlineDriver("driver-1", at: Coordinate(lat: 43.7400, lng: 7.4280))
        await h.call("POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: UUID().uuidString)
        let started = await h.call(
            "PUT", "/v1/trips/trip-1/live-activity", token: rider, json: #"{"token": "\#(activity)"}"#)
        #expect(started.status == 204)
        let driver = h.token(.driver, "driver-1")
        await h.call("POST", "/v1/trips/trip-1/accept", token: driver, key: UUID().uuidString)
        for event in ["arrived", "started", "ended"] {
            let answer = await h.call(
                "POST", "/v1/trips/trip-1/events", token: driver,
                json: #"{"event": "\#(event)", "idempotencyKey": "\#(UUID().uuidString)"}"#)
            #expect(answer.status == 200)
        }
        let push = try #require(h.services.push)
        await push.idle()

        let requests = try standIn.requests()
        let alerts = requests.filter { $0.header("apns-push-type") == "alert" }
        let updates = requests.filter { $0.header("apns-push-type") == "liveactivity" }
        #expect(alerts.allSatisfy { $0.token == device && $0.header("apns-topic") == "com.example.rider" })
        #expect(
            try alerts.map { try JSONDecoder().decode(AlertPayload.self, from: Data($0.body.utf8)).event }
                == [.driverAssigned, .driverArrived, .tripStarted, .tripCompleted])
        #expect(
            updates.allSatisfy {
                $0.token == activity && $0.header("apns-topic") == "com.example.rider.push-type.liveactivity"
            })
        let payloads = try updates.map { try JSONDecoder().decode(LiveActivityPayload.self, from: Data($0.body.utf8)) }
        #expect(payloads.map(\.aps.event) == ["update", "update", "update", "end"])
        #expect(
            payloads.map(\.aps.contentState.state) == [.driverAssigned, .driverArrived, .onTrip, .completed])
        #expect(updates.map { $0.header("apns-priority") } == ["5", "10", "5", "10"])
        let now = Int(h.now.timeIntervalSince1970)
        #expect(payloads.map(\.aps.staleDate) == [now + 120, now + 120, now + 120, nil])
        #expect(payloads.last?.aps.dismissalDate == now + 900)
        #expect(payloads.last?.aps.contentState.fare != nil)
        // The driver's last position stands behind the ETA on the lock screen while the trip runs.
        #expect(payloads.first?.aps.contentState.positionReceivedAt == now)
        #expect(requests.allSatisfy { $0.jwtValid && $0.status == 200 && $0.connection == 1 })
        // The trip has ended: its activity's token is forgotten; the device's stays for the next trip.
        #expect(try await h.services.trips.liveActivity(tripID: "trip-1") == nil)
        #expect(try await h.services.trips.device(principal: "rider:rider-1")?.token == device)
    }

    @Test func hailServerWithTheAPNsFlagsPushesARideToTheStandIn() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: ServerChild.hailBesideThisExecutable),
            "build the hail executable first (swift build --build-tests builds it beside the tests)")
        let standIn = try APNsStandIn()
        defer { standIn.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hail-apns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServerFlagsTests.start(
            [
                "--apns-key-file", standIn.keyPath, "--apns-key-id", Self.keyID, "--apns-team-id", Self.teamID,
                "--apns-topic", "com.example.rider", "--apns-host", standIn.host, "--apns-ca-file", standIn.caPath,
            ], in: folder)
        // SIGKILL in the defer: the test's assertions are made by then, and a defer cannot await a graceful stop.
        defer { server.kill() }
        let secret = try ServerSecret.load(at: folder.appendingPathComponent("hail.secret").path)
        let authority = TokenAuthority(authenticator: HMACAuthenticator(secret: secret))
        let now = Int64(Date().timeIntervalSince1970)
        let rider = authority.mint(AccessToken(role: .rider, sub: "rider-1", exp: now + 3600, iat: now))
        let driver = authority.mint(AccessToken(role: .driver, sub: "driver-1", exp: now + 3600, iat: now))
        let base = "http://127.0.0.1:\(server.port)"
        func call(_ method: String, _ path: String, _ token: String, _ body: String = "", key: Bool = false) async
            -> APIResponse
        {
            var headers = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
            if key { headers["Idempotency-Key"] = UUID().uuidString }
            return await ServerHarness.overTheWire(base, method, path, headers: headers, body: Data(body.utf8))
        }
        let device = Self.token("a1")
        let activity = Self.token("b2")
        let registered = await call(
            "PUT", "/v1/devices/me", rider, #"{"platform": "ios", "token": "\#(device)", "environment": "production"}"#)
        #expect(registered.status == 204)
        #expect(await call("POST", "/v1/drivers/me/status", driver, #"{"online": true}"#).status == 200)
        let point = LocationPoint(lat: 43.7400, lng: 7.4280, accuracy: 5, heading: 90, speed: 8, t: Date())
        let batch = try HailJSON.encodeString(LocationBatch(seq: 1, points: [point]))
        #expect(await call("POST", "/v1/drivers/me/locations", driver, batch).status == 200)
        let requested = await call("POST", "/v1/trips", rider, ServerHarness.requestBody(), key: true)
        let tripID = try HailJSON.decode(Trip.self, from: requested.body).id
        let activityAnswer = await call(
            "PUT", "/v1/trips/\(tripID)/live-activity", rider, #"{"token": "\#(activity)"}"#)
        #expect(activityAnswer.status == 204)
        #expect(await call("POST", "/v1/trips/\(tripID)/accept", driver, key: true).status == 200)
        for event in ["arrived", "started", "ended"] {
            let answer = await call(
                "POST", "/v1/trips/\(tripID)/events", driver,
                #"{"event": "\#(event)", "idempotencyKey": "\#(UUID().uuidString)"}"#)
            #expect(answer.status == 200)
        }
        // Assigned, arrived, started, completed: an alert and a Live Activity push each.
        try await standIn.waitForRequests(8)
        let requests = try standIn.requests()
        #expect(requests.filter { $0.token == device }.count == 4)
        let updates = requests.filter { $0.token == activity }
        #expect(
            try updates.map { try JSONDecoder().decode(LiveActivityPayload.self, from: Data($0.body.utf8)).aps.event }
                == ["update", "update", "update", "end"])
        #expect(requests.allSatisfy { $0.jwtValid && $0.protocol == "h2" && $0.status == 200 })
        #expect(requests.allSatisfy { $0.jwtHeader?.kid == Self.keyID && $0.jwtClaims?.iss == Self.teamID })
        let metrics = await ServerHarness.overTheWire(
            base, "GET", "/metrics",
            headers: [
                "Authorization":
                    "Bearer \(authority.mint(AccessToken(role: .operator, sub: "ops", exp: now + 3600, iat: now)))"
            ], body: Data())
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(text.contains(#"hail_push_total{type="alert",result="delivered"} 4"#))
        #expect(text.contains(#"hail_push_total{type="liveactivity",result="delivered"} 4"#))
    }
}
