import Foundation
import HailCore
import HailNet
import HailProcess
import HailProtocol
import HailServer
import HailTesting
import Testing

/// Two `hail server` processes on one PostgreSQL and one Redis, one of them started with
/// `--clock-offset-seconds 120` (test-only): what used to fail with `faketime` (drivers evicted, trips never
/// offered, offers refused) works both ways, and each node reports its offset from Redis's clock.
@Suite("Two node processes, one 120 s ahead", .serialized)
struct SkewedNodeProcessTests {
    /// The value of `hail_clock_offset_seconds{reference="redis"}` on `node`'s /metrics, once it has one.
    static func clockOffset(_ node: ServerChild, token: String) async throws -> Double {
        try await within(30, "the clock offset on /metrics") {
            while true {
                let metrics = try await LoopbackServer.http(base: node.base, "GET", "/metrics", token: token)
                let line = String(decoding: metrics.body, as: UTF8.self).split(separator: "\n").first {
                    $0.hasPrefix(#"hail_clock_offset_seconds{reference="redis"}"#)
                }
                if let value = line?.split(separator: " ").last.flatMap({ Double($0) }) { return value }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    @Test func driversOffersAndAcceptsWorkBetweenANodeAndOneTwoMinutesAhead() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: ServerChild.hailBesideThisExecutable),
            "build the hail executable first (swift build --build-tests builds it beside the tests)")
        let scaled = try await ScaledTestBackends.open()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hail-skew-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let secretPath = folder.appendingPathComponent("hail.secret").path
        // The deployment's secret and key set, made first: a scaled node creates neither and takes JWTs only.
        _ = try ServerSecret.loadOrCreate(at: secretPath)
        let key = try DeploymentKey.create(in: folder.path)
        let redisURL = try #require(ProcessInfo.processInfo.environment["HAIL_REDIS_URL"])
        let start = { (arguments: [String]) in
            try await ServerChild.node(
                postgresURL: scaled.postgresURL, redisURL: redisURL, schema: scaled.schema,
                prefix: scaled.schema + ":", secret: secretPath, key: key, arguments: arguments)
        }
        let slow = try await start([])
        let fast = try await start(["--clock-offset-seconds", "120"])
        let client = try WebSocketClient()
        defer {
            slow.kill()
            fast.kill()
            try? FileManager.default.removeItem(at: folder)
        }
        let now = Date()
        let mint = { (role: Role, subject: String) in key.token(role, subject, now: now) }
        // Each node measures its clock against Redis's: the offset is the option's, to within the loopback.
        #expect(abs(try await Self.clockOffset(fast, token: mint(.operator, "ops")) - 120) < 1)
        #expect(abs(try await Self.clockOffset(slow, token: mint(.operator, "ops"))) < 1)
        // A driver ingested through one node is offered a trip requested through the other, and accepts it
        // through the first (the offer placed by the requesting node, claimed through the other).
        for (ingesting, requesting, name) in [(slow, fast, "slow"), (fast, slow, "fast")] {
            let driver = mint(.driver, "driver-on-\(name)")
            let rider = mint(.rider, "rider-of-\(name)")
            let socket = TestSocket(
                try await client.connect(
                    to: "ws://127.0.0.1:\(ingesting.port)/v1/drivers/me/live?access_token=\(driver)"))
            _ = try await socket.next("hello", as: DriverServerFrame.self)
            let online = try await LoopbackServer.http(
                base: ingesting.base, "POST", "/v1/drivers/me/status", token: driver, body: #"{"online": true}"#)
            #expect(online.status == 200, "online through the \(name) node")
            try socket.send(MultiNodeKillTests.location(seq: 1, Coordinate(lat: 43.7400, lng: 7.4280), t: Date()))
            _ = try await socket.next("ack", as: DriverServerFrame.self)

            let created = try await LoopbackServer.http(
                base: requesting.base, "POST", "/v1/trips", token: rider, body: LoopbackRideTests.request,
                key: UUID().uuidString)
            #expect(created.status == 201)
            let trip = try HailJSON.decode(Trip.self, from: created.body)
            guard case .offer(let offer) = try await socket.next("offer", as: DriverServerFrame.self) else {
                throw LoopbackError(description: "no offer for the driver on the \(name) node")
            }
            #expect(offer.trip.id == trip.id)
            let accepted = try await LoopbackServer.http(
                base: ingesting.base, "POST", "/v1/trips/\(trip.id)/accept", token: driver, key: UUID().uuidString)
            #expect(accepted.status == 200, "accept through the \(name) node")
            #expect(try HailJSON.decode(Trip.self, from: accepted.body).driver?.id == "driver-on-\(name)")
        }
        await client.shutdown()
        await scaled.close()
    }
}
