import Foundation
import HailCore
import HailProcess
import HailProtocol
import HailServer
import Testing

/// `hail server` as a child process, so it can be killed for real.
final class ServerProcess: Sendable {
    let process: ChildProcess
    let port: Int
    // Held for the child's lifetime: releasing the pipe closes the read end its readability handler watches.
    private let output: Pipe

    /// The `hail` executable built beside this test binary.
    static var executable: URL {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return testBinary.deletingLastPathComponent().appendingPathComponent("hail")
    }

    /// Starts `hail server --port 0` on `database` and waits for its "listening on" line.
    static func start(database: String, secret: String) async throws -> ServerProcess {
        let output = Pipe()
        let lines = Inbox<String>()
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                Task { await lines.finish() }
                return
            }
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
                Task { await lines.put(String(line)) }
            }
        }
        let process = try ChildProcess.start(
            executable.path, ["server", "--port", "0", "--db", database, "--secret-file", secret, "--quiet"],
            standardOutput: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        while let line = await lines.next(within: 20) {
            if let range = line.range(of: "listening on http://127.0.0.1:") {
                let port = Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0
                return ServerProcess(process: process, port: port, output: output)
            }
        }
        process.send(SIGTERM)
        throw LoopbackError(description: "hail server did not report its port")
    }

    private init(process: ChildProcess, port: Int, output: Pipe) {
        self.process = process
        self.port = port
        self.output = output
    }

    var base: String { "http://127.0.0.1:\(port)" }

    /// SIGKILL: no chance to flush or close anything.
    func kill() {
        process.send(SIGKILL)
        _ = process.waitUntilExit()
    }
}

@Suite("SIGKILL mid-ride loses nothing acknowledged", .serialized)
struct CrashRestartTests {
    @Test func killedMidRideAndRestartedOnTheSameDatabase() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: ServerProcess.executable.path),
            "build the hail executable first (swift build --build-tests builds it beside the tests)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hail-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("hail.db").path
        let secretPath = folder.appendingPathComponent("hail.secret").path
        let first = try await ServerProcess.start(database: database, secret: secretPath)
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
        let second = try await ServerProcess.start(database: database, secret: secretPath)
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
