import Foundation
import HailCore
import HailProcess
import HailProtocol
import HailServer
import Testing

extension ServerChild {
    /// `hail server --port 0` on the SQLite file `database`, a child process that can be killed for real.
    static func embedded(database: String, secret: String) async throws -> ServerChild {
        try await ServerChild.start(
            executable: hailBesideThisExecutable,
            arguments: ["server", "--port", "0", "--db", database, "--secret-file", secret, "--quiet"],
            timeout: .seconds(20))
    }

    /// The base URL as the clients' strings have it.
    var base: String { "http://127.0.0.1:\(port)" }
}

@Suite("SIGKILL mid-ride loses nothing acknowledged", .serialized)
struct CrashRestartTests {
    @Test func killedMidRideAndRestartedOnTheSameDatabase() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: ServerChild.hailBesideThisExecutable),
            "build the hail executable first (swift build --build-tests builds it beside the tests)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hail-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("hail.db").path
        let secretPath = folder.appendingPathComponent("hail.secret").path
        let first = try await ServerChild.embedded(database: database, secret: secretPath)
        let tokens = TokenAuthority(authenticator: HMACAuthenticator(secret: try ServerSecret.load(at: secretPath)))
        let now = Int64(Date().timeIntervalSince1970)
        let rider = tokens.mint(AccessToken(role: .rider, sub: "rider-1", exp: now + 3600, iat: now))
        let driver = tokens.mint(AccessToken(role: .driver, sub: "driver-1", exp: now + 3600, iat: now))

        _ = try await LoopbackServer.http(
            base: first.base, "POST", "/v1/drivers/me/status", token: driver, body: #"{"online": true}"#)
        let point =
            #"{"seq": 1, "points": [{"lat": 43.7400, "lng": 7.4280, "accuracy": 5, "heading": 0, "speed": 0, "t": "\#(try WireDate.format(Date()))"}]}"#
        _ = try await LoopbackServer.http(
            base: first.base, "POST", "/v1/drivers/me/locations", token: driver, body: point)
        let requestKey = UUID().uuidString
        let created = try await LoopbackServer.http(
            base: first.base, "POST", "/v1/trips", token: rider, body: LoopbackRideTests.request, key: requestKey)
        let trip = try HailJSON.decode(Trip.self, from: created.body)
        let acceptKey = UUID().uuidString
        let accepted = try await LoopbackServer.http(
            base: first.base, "POST", "/v1/trips/\(trip.id)/accept", token: driver, key: acceptKey)
        #expect(accepted.status == 200)
        let arrived = try await LoopbackServer.http(
            base: first.base, "POST", "/v1/trips/\(trip.id)/events", token: driver,
            body: #"{"event": "arrived", "idempotencyKey": "\#(UUID().uuidString)"}"#)
        #expect(try HailJSON.decode(Trip.self, from: arrived.body).version == 3)

        first.kill()
        let second = try await ServerChild.embedded(database: database, secret: secretPath)
        defer { second.kill() }

        let read = try await LoopbackServer.http(base: second.base, "GET", "/v1/trips/active", token: rider)
        let survived = try HailJSON.decode(Trip.self, from: read.body)
        #expect(survived.id == trip.id)
        #expect(survived.state == .driverArrived)
        #expect(survived.version == 3)
        #expect(survived.driver?.id == "driver-1")
        // The idempotency records survived too: retries replay, they do not act twice.
        let replayedRequest = try await LoopbackServer.http(
            base: second.base, "POST", "/v1/trips", token: rider, body: LoopbackRideTests.request, key: requestKey)
        #expect(replayedRequest.status == 201)
        #expect(replayedRequest.body == created.body)
        let replayedAccept = try await LoopbackServer.http(
            base: second.base, "POST", "/v1/trips/\(trip.id)/accept", token: driver, key: acceptKey)
        #expect(replayedAccept.body == accepted.body)
        // And the ride goes on to the end on the restarted server.
        let started = try await LoopbackServer.http(
            base: second.base, "POST", "/v1/trips/\(trip.id)/events", token: driver,
            body: #"{"event": "started", "idempotencyKey": "\#(UUID().uuidString)"}"#)
        #expect(try HailJSON.decode(Trip.self, from: started.body).version == 4)
    }
}
