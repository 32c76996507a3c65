import Foundation
import HailCore
import HailNet
import HailProtocol
import HailServer
import Testing

/// Floods against the real server: requests and upgrades over their per-address and per-token limits
/// get 429 with `Retry-After` (or close 4029), a driver socket over its message rate is closed with
/// 4029, and nothing a refused request asked for happens. The server's clock is manual, so refills and
/// `Retry-After` values are exact.
@Suite("Hostile: floods", .serialized)
struct FloodTests {
    @Test func requestsOverTheAddressLimitGet429WithRetryAfterUntilTheBucketRefills() async throws {
        let server = try await HostileServer.start { $0.rateLimits.requestsPerAddress = Rate(perSecond: 0.5, burst: 3) }
        for _ in 0..<3 { #expect(await server.call("GET", "/healthz").status == 200) }
        let refused = await server.call("GET", "/healthz")
        #expect(refused.status == 429)
        #expect(refused.headers["Retry-After"] == "2")
        #expect(refused.headers["Content-Type"] == "application/json")
        #expect(refused.headers.keys.contains { $0.lowercased() == "x-request-id" })
        #expect(
            server.error(refused)
                == APIError(
                    code: .rateLimited,
                    message: "too many requests from this address (limit 0.5/s, burst 3); retry after 2 s"))
        server.advance(seconds: 1)
        #expect(await server.call("GET", "/healthz").headers["Retry-After"] == "1")
        server.advance(seconds: 1)
        #expect(await server.call("GET", "/healthz").status == 200)
        #expect(await server.call("GET", "/healthz").status == 429)
        // Another client address (behind the trusted loopback proxy) has its own bucket.
        #expect(await server.call("GET", "/healthz", headers: ["X-Forwarded-For": "198.51.100.7"]).status == 200)
        await server.stop()
    }

    @Test func aRefusedRequestChangesNothingAndItsRetryIsAppliedOnce() async throws {
        let server = try await HostileServer.start { $0.rateLimits.requestsPerToken = Rate(perSecond: 1, burst: 2) }
        let rider = server.token(.rider, "flooder")
        #expect(await server.call("GET", "/v1/trips/active", token: rider).status == 204)
        #expect(await server.call("GET", "/v1/trips/active", token: rider).status == 204)
        let key = UUID().uuidString
        let refused = await server.call(
            "POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: key)
        #expect(refused.status == 429)
        #expect(refused.headers["Retry-After"] == "1")
        #expect(try await server.services.trips.activeRecord(riderID: "flooder") == nil)
        // The same rider with a second token shares the bucket; another rider does not.
        #expect(
            await server.call("GET", "/v1/trips/active", token: server.token(.rider, "flooder", ttl: 60)).status == 429)
        #expect(await server.call("GET", "/v1/trips/active", token: server.token(.rider, "calm")).status == 204)
        server.advance(seconds: 1)
        let created = await server.call("POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: key)
        #expect(created.status == 201)
        server.advance(seconds: 1)
        let replayed = await server.call("POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: key)
        #expect(replayed.body == created.body)
        #expect(try await server.services.trips.activeRecords().count == 1)
        #expect(
            server.services.metrics.registry.render().contains(#"hail_rate_limited_total{limit="requestsPerToken"} 2"#))
        await server.stop()
    }

    @Test func upgradesOverTheTokenLimitAreClosedWith4029() async throws {
        let server = try await HostileServer.start {
            $0.rateLimits.connectionsPerToken = Rate(perSecond: 1, burst: 2)
        }
        let driver = server.token(.driver, "d-flood")
        let first = try await server.socket("/v1/drivers/me/live", token: driver)
        _ = try await first.next("hello", as: DriverServerFrame.self)
        let second = try await server.socket("/v1/drivers/me/live", token: driver)
        _ = try await second.next("hello", as: DriverServerFrame.self)
        #expect(await first.closed().code == WebSocketCloseCode.superseded.rawValue)
        let third = try await server.socket("/v1/drivers/me/live", token: driver)
        let closed = await third.closed()
        #expect(closed.code == WebSocketCloseCode.rateLimited.rawValue)
        #expect(closed.reason == "too many connections with this token (limit 1/s, burst 2); retry after 1 s")
        // The refused one did not replace the open one.
        #expect(second.connection.closeInfo == nil)
        server.advance(seconds: 1)
        let fourth = try await server.socket("/v1/drivers/me/live", token: driver)
        _ = try await fourth.next("hello", as: DriverServerFrame.self)
        await server.stop()
    }

    @Test func upgradesOverTheAddressLimitAreClosedWith4029() async throws {
        let server = try await HostileServer.start {
            $0.rateLimits.connectionsPerAddress = Rate(perSecond: 0.2, burst: 1)
        }
        let rider = try await server.socket("/v1/drivers/me/live", token: server.token(.driver, "a"))
        _ = try await rider.next("hello", as: DriverServerFrame.self)
        let refused = try await server.socket("/v1/drivers/me/live", token: server.token(.driver, "b"))
        let closed = await refused.closed()
        #expect(closed.code == WebSocketCloseCode.rateLimited.rawValue)
        #expect(closed.reason == "too many connections from this address (limit 0.2/s, burst 1); retry after 5 s")
        // HTTP requests are counted apart from connections.
        #expect(await server.call("GET", "/healthz").status == 200)
        await server.stop()
    }

    @Test func openSocketsOverTheAddressCapAreClosedWith4029UntilOneCloses() async throws {
        let server = try await HostileServer.start { $0.rateLimits.openConnectionsPerAddress = 2 }
        let first = try await server.socket("/v1/drivers/me/live", token: server.token(.driver, "a"))
        _ = try await first.next("hello", as: DriverServerFrame.self)
        let second = try await server.socket("/v1/drivers/me/live", token: server.token(.driver, "b"))
        _ = try await second.next("hello", as: DriverServerFrame.self)
        let refused = try await server.socket("/v1/drivers/me/live", token: server.token(.driver, "c"))
        let closed = await refused.closed()
        #expect(closed.code == WebSocketCloseCode.rateLimited.rawValue)
        #expect(closed.reason == "too many open connections from this address (limit 2); close one or retry later")
        first.connection.close(code: 1000, reason: "bye")
        _ = await first.closed()
        // Once the server has let go of the first, a bad token gets its 4001 (not 4029) ...
        let unauthorized = try await server.eventually { () -> WebSocketCloseInfo? in
            let closed = await (try await server.socket("/v1/drivers/me/live", token: "hail1.bad.token")).closed()
            return closed.code == WebSocketCloseCode.rateLimited.rawValue ? nil : closed
        }
        #expect(unauthorized.code == WebSocketCloseCode.unauthorized.rawValue)
        // ... and does not keep the place it was let into: the next one gets it.
        let third = try await server.socket("/v1/drivers/me/live", token: server.token(.driver, "c"))
        _ = try await third.next("hello", as: DriverServerFrame.self)
        #expect(third.connection.closeInfo == nil)
        await server.stop()
    }

    @Test func aDriverSocketOverItsMessageRateIsClosedWith4029AndTheExcessIsNotApplied() async throws {
        let server = try await HostileServer.start {
            $0.rateLimits.messagesPerConnection = Rate(perSecond: 1, burst: 5)
        }
        let start = Coordinate(lat: 43.7400, lng: 7.4280)
        try await server.onlineDriver("chatty", at: start)
        let socket = try await server.socket("/v1/drivers/me/live", token: server.token(.driver, "chatty"))
        _ = try await socket.next("hello", as: DriverServerFrame.self)
        for seq in Int64(2)...7 {
            // Each fix 10 m north of the last, one second later: plausible, so only the rate can refuse it.
            let point = LocationPoint(
                lat: start.lat + Double(seq - 1) * 0.00009, lng: start.lng, accuracy: 5, heading: 0, speed: 10,
                t: server.now.addingTimeInterval(Double(seq - 1)))
            try socket.send(DriverClientFrame.location(LocationBatch(seq: seq, points: [point])))
        }
        var acked: [Int64] = []
        for _ in 0..<5 {
            guard case .ack(let ack) = try await socket.next("ack", as: DriverServerFrame.self) else { continue }
            acked.append(ack.seq)
        }
        #expect(acked == [2, 3, 4, 5, 6])
        let closed = await socket.closed()
        #expect(closed.code == WebSocketCloseCode.rateLimited.rawValue)
        #expect(closed.reason == "too many messages on this socket (limit 1/s, burst 5); retry after 1 s")
        #expect(await server.services.fleet.position(driverID: "chatty")?.seq == 6)
        #expect(
            server.services.metrics.registry.render().contains(
                #"hail_rate_limited_total{limit="messagesPerConnection"} 1"#))
        await server.stop()
    }
}
