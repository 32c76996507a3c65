import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

/// What schemathesis found over the wire and the in-process tests could not see: answers made by the HTTP layer
/// before `HailAPI`, and paths HailNet hands over already decoded.
@Suite("Methods and paths over loopback", .serialized)
struct MethodsAndPathsOverLoopbackTests {
    @Test("TRACE, which libwebsockets does not parse, gets the JSON 405 with Allow, not lws's HTML 403")
    func traceIsOurJSON405() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-trace-\(UUID().uuidString).db")
            .path
        let (h, server) = try await ServerHarness.loopback(databasePath: path)
        let metrics = await h.call("TRACE", "/metrics")
        let unknown = await h.call("BREW", "/metrics")
        await server.shutdown()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        #expect(metrics.status == 405)
        #expect(metrics.headers["Allow"] == "GET")
        #expect(metrics.headers["Content-Type"] == "application/json")
        #expect(h.error(from: metrics)?.code == .methodNotAllowed)
        #expect(unknown.status == 501)
        #expect(h.error(from: unknown)?.message == "BREW is not an HTTP method this server knows")
    }

    @Test("a plain GET on each WebSocket route is 426 Upgrade Required with Upgrade: websocket and a JSON error")
    func plainGetOnAWebSocketRouteIs426() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-426-\(UUID().uuidString).db")
            .path
        let (h, server) = try await ServerHarness.loopback(databasePath: path)
        let routes = ["/v1/trips/trip_1/live", "/v1/drivers/me/live", "/v1/fleet/live"]
        var answers: [(status: Int, upgrade: String?, error: APIError?)] = []
        for route in routes {
            let response = await h.call("GET", route, token: h.token(.rider, "rider-1"))
            answers.append((response.status, response.headers["Upgrade"], h.error(from: response)))
        }
        await server.shutdown()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        #expect(answers.map(\.status) == [426, 426, 426])
        #expect(answers.map(\.upgrade) == ["websocket", "websocket", "websocket"])
        #expect(answers.map { $0.error?.code } == [.upgradeRequired, .upgradeRequired, .upgradeRequired])
        #expect(
            answers.map { $0.error?.message }
                == [
                    "/v1/trips/{id}/live", "/v1/drivers/me/live", "/v1/fleet/live",
                ].map {
                    "\($0) is a WebSocket: open it with a WebSocket client (GET with Connection: Upgrade and "
                        + "Upgrade: websocket)"
                })
    }

    @Test("an id with an encoded ?, # or % reaches the trip route whole, not a shorter path and a query")
    func encodedDelimitersStayInTheId() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-ids-\(UUID().uuidString).db")
            .path
        let (h, server) = try await ServerHarness.loopback(databasePath: path)
        let rider = h.token(.rider, "rider-1")
        var messages: [String?] = []
        for id in ["a%3Fb", "a%23b", "a%25b"] {
            messages.append(h.error(from: await h.call("GET", "/v1/trips/\(id)", token: rider))?.message)
        }
        let share = await h.call("GET", "/share/%3Fx")
        await server.shutdown()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        #expect(messages == ["there is no trip a?b", "there is no trip a#b", "there is no trip a%b"])
        #expect(share.status == 401)
        #expect(share.headers["Content-Type"] == "text/html; charset=utf-8")
    }
}
