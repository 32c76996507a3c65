import Foundation
import HailCore
import HailNet
import HailProtocol
import HailTesting
import Synchronization
import Testing

@testable import HailServer

/// `HTTPFront`: what the API answers at once (a health probe, a refusal before any store) and what it answers
/// later (a route that awaits) reach the client the same way: the request id, the server's time, one log line and
/// one count each.
@Suite struct HTTPFrontTests {
    /// One request on the kept-alive connection, what the API should make of it, and whether it answers at once.
    struct Case: Sendable {
        let request: String
        let status: Int
        let route: String
        let now: Bool
    }

    @Test func answersNowAndLaterAreStampedLoggedAndCountedAlike() async throws {
        let harness = await ServerHarness(authenticator: HMACAuthenticator(secret: Array(repeating: 7, count: 32)))
        let lines = Mutex<[String]>([])
        var options = BackendServer.Options()
        options.port = 0
        options.log = { line in lines.withLock { $0.append(line) } }
        let server = try await BackendServer.start(services: harness.services, options: options)
        let rider = harness.token(.rider, "rider-1")
        let estimate = #"{"pickup":{"lat":43.7384,"lng":7.4246},"dropoff":{"lat":43.7311,"lng":7.4197}}"#
        let cases = [
            Case(request: "GET /healthz HTTP/1.1\r\n", status: 200, route: "health", now: true),
            Case(request: "GET /nowhere HTTP/1.1\r\n", status: 404, route: "unmatched", now: true),
            Case(request: "DELETE /healthz HTTP/1.1\r\n", status: 405, route: "unmatched", now: true),
            Case(request: "GET /v1/trips/active HTTP/1.1\r\n", status: 401, route: "activeTrip", now: true),
            Case(request: "GET /v1/trips/t-1/live HTTP/1.1\r\n", status: 426, route: "tripLive", now: true),
            Case(
                request: "POST /v1/estimates HTTP/1.1\r\nAuthorization: Bearer \(rider)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(estimate.utf8.count)\r\n",
                status: 200, route: "estimates", now: false),
            Case(
                request: "GET /v1/trips/active HTTP/1.1\r\nAuthorization: Bearer \(rider)\r\n", status: 204,
                route: "activeTrip", now: false),
        ]
        for (index, item) in cases.enumerated() {
            let apiRequest = APIRequest(
                method: String(item.request.prefix { $0 != " " }),
                target: String(item.request.split(separator: " ")[1]),
                headers: item.request.contains("Bearer") ? ["Authorization": "Bearer \(rider)"] : [:],
                body: item.route == "estimates" ? Data(estimate.utf8) : Data(), requestID: "r-\(index)")
            if case .now = harness.api.answer(apiRequest) {
                #expect(item.now, "\(item.route) answered at once")
            } else {
                #expect(!item.now, "\(item.route) answered later")
            }
        }
        let port = server.port
        let responses = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            return try cases.enumerated().map { index, item in
                let body = item.route == "estimates" ? estimate : ""
                try socket.send(item.request + "Host: x\r\nX-Request-Id: r-\(index)\r\n\r\n" + body)
                return try socket.readResponse()
            }
        }
        #expect(responses.map(\.status) == cases.map(\.status))
        #expect(responses.map { $0.headers["x-request-id"] } == cases.indices.map { "r-\($0)" })
        // The harness's manual clock (its epoch, 1,796,220,000 s) has not moved.
        #expect(responses.allSatisfy { $0.headers["x-hail-server-time"] == "2026-12-02T14:00:00.000Z" })
        #expect(responses[0].text == #"{"status":"ok"}"#)
        #expect(responses[2].headers["allow"] == "GET")
        #expect(responses[4].headers["upgrade"] == "websocket")
        #expect(responses[5].text.hasPrefix(#"[{"etaSeconds":"#))
        let logged = lines.withLock { $0 }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
        }
        #expect(logged.map { $0["requestId"] } == cases.indices.map { "r-\($0)" })
        #expect(logged.map { $0["route"] } == cases.map(\.route))
        #expect(logged.map { $0["status"] } == cases.map { String($0.status) })
        #expect(logged.allSatisfy { $0["at"] == "2026-12-02T14:00:00.000Z" && $0["remote"] == "127.0.0.1" })
        let registry = harness.services.metrics.registry
        for (route, status, count) in [
            ("health", "200", 1.0), ("unmatched", "404", 1), ("unmatched", "405", 1), ("activeTrip", "401", 1),
            ("tripLive", "426", 1), ("estimates", "200", 1), ("activeTrip", "204", 1),
        ] {
            #expect(
                registry.value("hail_http_requests_total", labels: ["route": route, "status": status]) == count,
                "\(route) \(status)")
        }
        await server.shutdown()
    }

    @Test func aTargetIsEncodedAgainOnlyWhereItNeedsTo() {
        #expect(HTTPFront.target(path: "/v1/trips/t-1.x_y~z", query: []) == "/v1/trips/t-1.x_y~z")
        #expect(HTTPFront.target(path: "/v1/trips/a?b#c%d", query: []) == "/v1/trips/a%3Fb%23c%25d")
        #expect(HTTPFront.target(path: "/v1/trips/é", query: []) == "/v1/trips/%C3%A9")
        #expect(
            HTTPFront.target(path: "/v1/drivers/nearby", query: [QueryItem(name: "lat", value: "1 2")])
                == "/v1/drivers/nearby?lat=1%202")
        #expect(HTTPFront.sameName("X-Request-Id", "x-request-id"))
        #expect(!HTTPFront.sameName("x\rrequest\rid", "x-request-id"))
        #expect(
            HTTPFront.headerValues(HTTPHeaders([("X-Forwarded-For", "a"), ("x-forwarded-for", "b"), ("host", "h")]))
                == ["x-forwarded-for": "a", "host": "h"])
    }
}
