import Foundation
import HailCore
import HailNet
import HailProtocol
import HailServer
import Synchronization
import Testing

/// Access tokens as an identity provider mints them, against the real server on loopback: the refusals a client
/// sees (401 with the reason in JSON, 4001 on a stream), `/metrics` behind a credential, and a log without secrets.
@Suite("Tokens over loopback", .serialized)
struct TokenSecurityOverLoopbackTests {
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func message(_ body: Data) -> String? {
        (try? HailJSON.decode(ErrorBody.self, from: body)).map { "\($0.error.code.rawValue): \($0.error.message)" }
    }

    @Test func eachBadTokenIs401WithItsReasonOverHTTPAnd4001OnAStream() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { await server.stop() } }
        let minter = try #require(server.minter)
        let now = Int64(Date().timeIntervalSince1970)
        func claims(aud: String = "hail", exp: Int64 = now + 600) -> JWTClaims {
            JWTClaims(iss: "hail", sub: "rider-1", aud: .init([aud]), exp: exp, iat: now - 60, role: "rider")
        }
        let signedClaims = Self.base64URL(Array(try JSONEncoder().encode(claims())))
        let none = Self.base64URL(Array(#"{"alg":"none","kid":"\#(minter.keyID)"}"#.utf8)) + ".\(signedClaims)."
        let hsHeader = Self.base64URL(Array(#"{"alg":"HS256","kid":"\#(minter.keyID)","typ":"JWT"}"#.utf8))
        let confusion =
            "\(hsHeader).\(signedClaims)."
            + Self.base64URL(
                HMAC.sha256(
                    key: Array(JSONWebKeySet(keys: [minter.publicKey]).text.utf8),
                    message: Array("\(hsHeader).\(signedClaims)".utf8)))
        let cases: [(String, String)] = [
            (minter.mint(claims(exp: now - 120)), "the token has expired"),
            (minter.mint(claims(aud: "someone-else")), #"the token's audience (aud) does not include "hail""#),
            (
                minter.mint(claims(), keyID: "retired-2025"),
                #"the token's key id "retired-2025" is not among this server's keys"#
            ),
            (none, #"the token's algorithm "none" is not accepted: tokens are signed with ES256 or RS256"#),
            (confusion, #"the token's algorithm "HS256" is not accepted: tokens are signed with ES256 or RS256"#),
        ]
        for (token, reason) in cases {
            let answer = try await server.http("GET", "/v1/trips/active", token: token)
            #expect(answer.status == 401, "\(reason)")
            #expect(Self.message(answer.body) == "unauthorized: \(reason)")
            let socket = try await server.socket("/v1/drivers/me/live", token: token)
            let closed = await socket.closed()
            #expect(closed.code == WebSocketCloseCode.unauthorized.rawValue)
            #expect(closed.reason == reason)
        }
        #expect(try await server.http("GET", "/v1/trips/active", token: server.token(.rider, "rider-1")).status == 204)
    }

    @Test func metricsAreRefusedWithoutCredentials() async throws {
        let metricsToken = "scrape-" + SecureRandom.hex(byteCount: 24)
        let server = try await LoopbackServer.start { $0.configuration.metricsToken = metricsToken }
        defer { Task { await server.stop() } }
        let anonymous = try await server.http("GET", "/metrics")
        #expect(anonymous.status == 401)
        #expect(Self.message(anonymous.body) == "unauthorized: send Authorization: Bearer <token>")
        #expect(try await server.http("GET", "/metrics", token: "scrape-wrong").status == 401)
        let rider = try await server.http("GET", "/metrics", token: server.token(.rider, "rider-1"))
        #expect(rider.status == 403)
        #expect(Self.message(rider.body) == "forbidden: a rider token cannot use /metrics")
        for token in [metricsToken, server.token(.operator, "ops-1")] {
            let scraped = try await server.http("GET", "/metrics", token: token)
            #expect(scraped.status == 200)
            #expect(String(decoding: scraped.body, as: UTF8.self).contains("# TYPE hail_trips gauge"))
        }
    }

    @Test func noTokenShareTokenOrIdempotencyKeyReachesTheLog() async throws {
        let lines = Mutex<[String]>([])
        let server = try await LoopbackServer.start { options in
            options.log = { line in lines.withLock { $0.append(line) } }
        }
        defer { Task { await server.stop() } }
        let driverToken = server.token(.driver, "driver-1")
        let riderToken = server.token(.rider, "rider-1")
        let operatorToken = server.token(.operator, "ops-1")
        var secrets = [driverToken, riderToken, operatorToken]

        let driver = try await server.socket("/v1/drivers/me/live", token: driverToken)
        _ = try await driver.next("hello", as: DriverServerFrame.self)
        let status = try await server.http(
            "POST", "/v1/drivers/me/status", token: driverToken, body: #"{"online": true}"#)
        #expect(status.status == 200)
        try driver.send(LoopbackRideTests.location(seq: 1, lat: 43.7400, lng: 7.4280))
        _ = try await driver.next("ack", as: DriverServerFrame.self)
        let requestKey = UUID().uuidString
        secrets.append(requestKey)
        let created = try await server.http(
            "POST", "/v1/trips", token: riderToken, body: LoopbackRideTests.request, key: requestKey)
        let trip = try HailJSON.decode(Trip.self, from: created.body)
        _ = try await driver.next("offer", as: DriverServerFrame.self)
        let acceptKey = UUID().uuidString
        secrets.append(acceptKey)
        #expect(
            try await server.http("POST", "/v1/trips/\(trip.id)/accept", token: driverToken, key: acceptKey).status
                == 200)
        let shared = try await server.http("POST", "/v1/trips/\(trip.id)/share", token: riderToken, body: "{}")
        let share = try HailJSON.decode(ShareLinkResponse.self, from: shared.body).token
        secrets.append(share)
        // What a browser does: the share page by its path, its stream and the fleet map with `?access_token=`.
        #expect(try await server.http("GET", "/share/\(share)").status == 200)
        let watcher = TestSocket(
            try await server.client.connect(
                to: "ws://127.0.0.1:\(server.server.port)/v1/trips/\(trip.id)/live?access_token=\(share)"))
        _ = try await watcher.next("hello", as: RiderServerFrame.self)
        #expect(try await server.http("GET", "/v1/fleet?access_token=\(operatorToken)").status == 200)
        for event in ["arrived", "started", "ended"] {
            let key = UUID().uuidString
            secrets.append(key)
            let answer = try await server.http(
                "POST", "/v1/trips/\(trip.id)/events", token: driverToken,
                body: #"{"event": "\#(event)", "idempotencyKey": "\#(key)"}"#, key: key)
            #expect(answer.status == 200, "\(event)")
        }
        // A refused token is not logged either.
        let refusedToken = server.token(.rider, "rider-2") + "x"
        secrets.append(refusedToken)
        #expect(try await server.http("GET", "/v1/trips/active", token: refusedToken).status == 401)

        let log = lines.withLock { $0 }.joined(separator: "\n")
        #expect(log.contains(#""path":"\/share\/[token]""#) || log.contains(#""path":"/share/[token]""#))
        #expect(log.contains(#""route":"acceptTrip""#))
        for secret in secrets {
            #expect(!log.contains(secret), "a secret reached the log")
            // Nor its signature alone (a token cut at a dot, or percent-encoded, still leaks it).
            if let signature = secret.split(separator: ".").last, secret.contains(".") {
                #expect(!log.contains(signature), "a token's signature reached the log")
            }
        }
    }
}
