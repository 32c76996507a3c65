import Foundation
import HailCore
import HailNet
import HailProtocol
import HailServer
import Testing

/// Tokens used where they should not work: a share token on every other route, expired, forged and
/// tampered tokens, a share link replayed after its trip ended. Each gets the exact refusal and
/// changes nothing.
@Suite("Hostile: tokens", .serialized)
struct TokenAbuseTests {
    /// A rider's trip (searching, no driver) and a share token for it.
    static func sharedTrip(on server: HostileServer) async throws -> (trip: Trip, share: String) {
        let rider = server.token(.rider, "sharer")
        let created = await server.call(
            "POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: UUID().uuidString)
        let trip = try HailJSON.decode(Trip.self, from: created.body)
        let link = await server.call("POST", "/v1/trips/\(trip.id)/share", token: rider)
        return (trip, try HailJSON.decode(ShareLinkResponse.self, from: link.body).token)
    }

    @Test(arguments: Backend.allCases) func aShareTokenIsRefusedOnEveryRouteButItsTripAndPage(backend: Backend)
        async throws
    {
        let server = try await HostileServer.start(backend: backend)
        let (trip, share) = try await Self.sharedTrip(on: server)
        let before = try await server.services.trips.record(id: trip.id)
        var checked: [String] = []
        for route in Routes.all where route.access != .everyone && route.access != .shareToken {
            let path = route.path(["id": trip.id])
            if route == Routes.trip || route == Routes.tripLive {
                continue  // the two a share token is for; checked below, and on other trips
            }
            if route.isWebSocket {
                let socket = try await server.socket(path, token: share)
                let closed = await socket.closed()
                #expect(closed.code == WebSocketCloseCode.forbidden.rawValue, "\(route)")
                #expect(closed.reason == "a share token cannot use \(route.template)", "\(route)")
            } else {
                let answer = await server.call(
                    route.method.rawValue, path, token: share, json: route.method == .post ? "{}" : nil,
                    key: route.requiresIdempotencyKey ? UUID().uuidString : nil)
                #expect(answer.status == 403, "\(route) answered \(answer.status)")
                #expect(
                    server.error(answer)
                        == APIError(code: .forbidden, message: "a share token cannot use \(route.template)"),
                    "\(route)")
            }
            checked.append(route.name)
        }
        // All but the three open to everyone (health, readiness, the map library), the share page, and the two
        // routes a share token is for; /metrics is an operator's.
        #expect(checked.count == Routes.all.count - 6)
        #expect(checked.contains("metrics"))
        // Its own trip and page work; another trip does not, on either route.
        #expect(await server.call("GET", "/v1/trips/\(trip.id)", token: share).status == 200)
        #expect(await server.call("GET", "/share/\(share)").status == 200)
        let other = await server.call(
            "POST", "/v1/trips", token: server.token(.rider, "other"), json: ServerHarness.requestBody(),
            key: UUID().uuidString)
        let otherID = try HailJSON.decode(Trip.self, from: other.body).id
        #expect(await server.call("GET", "/v1/trips/\(otherID)", token: share).status == 403)
        let foreign = try await server.socket("/v1/trips/\(otherID)/live", token: share)
        #expect(await foreign.closed().code == WebSocketCloseCode.forbidden.rawValue)
        #expect(try await server.services.trips.record(id: trip.id) == before)
        #expect(try await server.services.trips.activeRecords().count == 2)
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func anExpiredTokenIs401OverHTTPAnd4001OnAStream(backend: Backend) async throws {
        let server = try await HostileServer.start(backend: backend)
        let created = await server.call(
            "POST", "/v1/trips", token: server.token(.rider, "late"), json: ServerHarness.requestBody(),
            key: UUID().uuidString)
        let trip = try HailJSON.decode(Trip.self, from: created.body)
        let shortLived = server.token(.rider, "late", ttl: 10)
        #expect(await server.call("GET", "/v1/trips/active", token: shortLived).status == 200)
        server.advance(seconds: 10)
        let refused = await server.call("GET", "/v1/trips/active", token: shortLived)
        #expect(refused.status == 401)
        #expect(server.error(refused) == APIError(code: .unauthorized, message: "the token has expired"))
        let cancel = await server.call(
            "POST", "/v1/trips/\(trip.id)/cancel", token: shortLived, json: "{}", key: UUID().uuidString)
        #expect(cancel.status == 401)
        let socket = try await server.socket("/v1/trips/\(trip.id)/live", token: shortLived)
        let closed = await socket.closed()
        #expect(closed.code == WebSocketCloseCode.unauthorized.rawValue)
        #expect(closed.reason == "the token has expired")
        #expect(try await server.services.trips.record(id: trip.id)?.trip.state == .searching)
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func aShareLinkReplayedAfterItsTripEndedOrExpiredIsRefused(backend: Backend)
        async throws
    {
        let server = try await HostileServer.start(backend: backend)
        let (trip, share) = try await Self.sharedTrip(on: server)
        #expect(await server.call("GET", "/v1/trips/\(trip.id)", token: share).status == 200)
        let cancelled = await server.call(
            "POST", "/v1/trips/\(trip.id)/cancel", token: server.token(.rider, "sharer"), json: "{}",
            key: UUID().uuidString)
        #expect(cancelled.status == 200)
        let ended = await server.call("GET", "/v1/trips/\(trip.id)", token: share)
        #expect(ended.status == 403)
        #expect(server.error(ended)?.message == "this share link ended with the trip")
        #expect(await server.call("GET", "/share/\(share)").status == 403)

        let (second, secondShare) = try await Self.sharedTrip(on: server)
        server.advance(seconds: server.services.configuration.shareLinkLifetime)
        let expired = await server.call("GET", "/v1/trips/\(second.id)", token: secondShare)
        #expect(expired.status == 401)
        #expect(await server.call("GET", "/share/\(secondShare)").status == 401)
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func forgedAndTamperedTokensAre401(backend: Backend) async throws {
        let server = try await HostileServer.start(backend: backend)
        let now = Int64(server.now.timeIntervalSince1970)
        let foreignAuthority = TokenAuthority(authenticator: HMACAuthenticator(secret: SecureRandom.bytes(32)))
        let forged = foreignAuthority.mint(AccessToken(role: .operator, sub: "mallory", exp: now + 3600, iat: now))
        let answer = await server.call("GET", "/v1/fleet", token: forged)
        #expect(answer.status == 401)
        #expect(server.error(answer)?.message == "the token's signature is not valid")

        // A real rider token with its claims rewritten to operator, the signature kept.
        let real = server.token(.rider, "mallory")
        let parts = real.split(separator: ".")
        let claims = try HailJSON.encode(AccessToken(role: .operator, sub: "mallory", exp: now + 3600, iat: now))
        let encoded = claims.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let tampered = "\(parts[0]).\(encoded).\(parts[2])"
        let tamperedAnswer = await server.call("GET", "/v1/fleet", token: tampered)
        #expect(tamperedAnswer.status == 401)
        #expect(server.error(tamperedAnswer)?.message == "the token's signature is not valid")
        #expect(await server.call("GET", "/v1/fleet", token: String(repeating: "a", count: 5000)).status == 401)
        #expect(await server.call("GET", "/v1/fleet", token: "hail1..").status == 401)
        #expect(await server.call("GET", "/v1/fleet", token: server.token(.operator, "ops")).status == 200)
        await server.stop()
    }
}
