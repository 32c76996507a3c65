import Foundation
import HailCore
import HailNet
import HailProcess
import HailProtocol
import HailScale
import HailServer
import Testing

extension ServerChild {
    /// `hail server --postgres --redis` as a child process on the test's schema and key prefix: one node of a
    /// scaled deployment with its secret and key set, killable for real; `arguments` go after the others.
    static func node(
        postgresURL: String, redisURL: String, schema: String, prefix: String, secret: String, key: DeploymentKey,
        arguments: [String] = []
    ) async throws -> ServerChild {
        try await ServerChild.start(
            executable: hailBesideThisExecutable,
            arguments: [
                "server", "--port", "0", "--postgres", postgresURL, "--redis", redisURL, "--postgres-schema", schema,
                "--redis-prefix", prefix, "--secret-file", secret, "--jwks", key.jwksPath, "--db",
                "/nonexistent/unused.db",
                "--quiet",
            ] + arguments, timeout: .seconds(30))
    }
}

/// The issue's multi-node check: two `hail server` processes on one PostgreSQL and one Redis, the driver on
/// node A and the rider on node B, node A killed mid-trip.
@Suite("Two node processes, one killed mid-trip", .serialized)
struct MultiNodeKillTests {
    static func location(seq: Int64, _ coordinate: Coordinate, t: Date) -> DriverClientFrame {
        .location(
            LocationBatch(
                seq: seq,
                points: [
                    LocationPoint(lat: coordinate.lat, lng: coordinate.lng, accuracy: 5, heading: 180, speed: 8, t: t)
                ]))
    }

    @Test func theRiderSeesEveryChangeAndTheTripCompletesOnTheSurvivingNode() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: ServerChild.hailBesideThisExecutable),
            "build the hail executable first (swift build --build-tests builds it beside the tests)")
        let scaled = try await ScaledTestBackends.open()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hail-nodes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let secretPath = folder.appendingPathComponent("hail.secret").path
        // The deployment's secret and key set, made first: a scaled node creates neither and takes JWTs only.
        _ = try ServerSecret.loadOrCreate(at: secretPath)
        let key = try DeploymentKey.create(in: folder.path)
        let redisURL = try #require(ProcessInfo.processInfo.environment["HAIL_REDIS_URL"])
        let start = {
            try await ServerChild.node(
                postgresURL: scaled.postgresURL, redisURL: redisURL, schema: scaled.schema,
                prefix: scaled.schema + ":", secret: secretPath, key: key)
        }
        let nodeA = try await start()
        let nodeB = try await start()
        let client = try WebSocketClient()
        defer {
            nodeA.kill()
            nodeB.kill()
            try? FileManager.default.removeItem(at: folder)
        }
        let now = Date()
        let mint = { (role: Role, subject: String) in key.token(role, subject, now: now) }
        let driver = mint(.driver, "driver-1")
        let other = mint(.driver, "driver-2")
        let rider = mint(.rider, "rider-1")
        let socket = { (node: ServerChild, path: String, token: String) in
            TestSocket(try await client.connect(to: "ws://127.0.0.1:\(node.port)\(path)?access_token=\(token)"))
        }

        // The driver streams to node A; a second driver, farther away, is online on node B.
        let driverOnA = try await socket(nodeA, "/v1/drivers/me/live", driver)
        _ = try await driverOnA.next("hello", as: DriverServerFrame.self)
        _ = try await LoopbackServer.http(
            base: nodeA.base, "POST", "/v1/drivers/me/status", token: driver, body: #"{"online": true}"#)
        let t0 = Date()
        try driverOnA.send(Self.location(seq: 1, Coordinate(lat: 43.7400, lng: 7.4280), t: t0))
        _ = try await driverOnA.next("ack", as: DriverServerFrame.self)
        _ = try await LoopbackServer.http(
            base: nodeB.base, "POST", "/v1/drivers/me/status", token: other, body: #"{"online": true}"#)

        // The rider requests and watches on node B; node B's dispatch offers the trip to node A's driver.
        let created = try await LoopbackServer.http(
            base: nodeB.base, "POST", "/v1/trips", token: rider, body: LoopbackRideTests.request, key: UUID().uuidString
        )
        #expect(created.status == 201)
        let trip = try HailJSON.decode(Trip.self, from: created.body)
        let riderOnB = try await socket(nodeB, "/v1/trips/\(trip.id)/live", rider)
        guard case .offer(let offer) = try await driverOnA.next("offer", as: DriverServerFrame.self) else {
            throw LoopbackError(description: "no offer")
        }
        #expect(offer.trip.id == trip.id)
        // Every trip change the rider sees, by version; a version delivered twice is recorded as a failure.
        var versions: [Int: TripState] = [:]
        func riderFrame(_ type: String) async throws -> RiderServerFrame {
            while true {
                let frame = try HailJSON.decode(RiderServerFrame.self, from: Data(try await riderOnB.nextText().utf8))
                if case .tripUpdated(let update) = frame {
                    #expect(versions[update.version] == nil, "version \(update.version) delivered twice")
                    versions[update.version] = update.state
                }
                if frame.type == type { return frame }
            }
        }
        _ = try await riderFrame("tripUpdated")

        // Two drivers accept on two nodes at once: exactly one gets the trip.
        let acceptKey = UUID().uuidString
        async let winner = LoopbackServer.http(
            base: nodeA.base, "POST", "/v1/trips/\(trip.id)/accept", token: driver, key: acceptKey)
        async let loser = LoopbackServer.http(
            base: nodeB.base, "POST", "/v1/trips/\(trip.id)/accept", token: other, key: UUID().uuidString)
        let (accepted, refused) = try await (winner, loser)
        #expect(accepted.status == 200)
        #expect(refused.status == 409)

        // Node A publishes the driver's position; the rider on node B sees it.
        try driverOnA.send(Self.location(seq: 2, Coordinate(lat: 43.7399, lng: 7.4279), t: t0.addingTimeInterval(2)))
        guard case .driverMoved(let moved) = try await riderFrame("driverMoved") else {
            throw LoopbackError(description: "no position")
        }
        #expect(moved.seq == 2)
        let arrivedKey = UUID().uuidString
        let arrived = try await LoopbackServer.http(
            base: nodeA.base, "POST", "/v1/trips/\(trip.id)/events", token: driver,
            body: #"{"event": "arrived", "idempotencyKey": "\#(arrivedKey)"}"#)
        #expect(arrived.status == 200)

        // Node A dies mid-trip; the driver reconnects to node B and finds the trip where it was.
        nodeA.kill()
        #expect(await driverOnA.closed().code != 1000)
        let driverOnB = try await socket(nodeB, "/v1/drivers/me/live", driver)
        _ = try await driverOnB.next("hello", as: DriverServerFrame.self)
        guard case .tripUpdated(let resumed) = try await driverOnB.next("tripUpdated", as: DriverServerFrame.self)
        else { throw LoopbackError(description: "no trip on reconnect") }
        #expect(resumed.state == .driverArrived)
        #expect(resumed.version == 3)
        // The outbox retries "arrived" through node B: replayed, not applied twice. A replayed batch is ignored.
        let retried = try await LoopbackServer.http(
            base: nodeB.base, "POST", "/v1/trips/\(trip.id)/events", token: driver,
            body: #"{"event": "arrived", "idempotencyKey": "\#(arrivedKey)"}"#)
        #expect(retried.body == arrived.body)
        try driverOnB.send(Self.location(seq: 2, Coordinate(lat: 43.7390, lng: 7.4270), t: t0.addingTimeInterval(2)))
        try driverOnB.send(Self.location(seq: 3, Coordinate(lat: 43.7398, lng: 7.4278), t: t0.addingTimeInterval(4)))
        guard case .driverMoved(let afterKill) = try await riderFrame("driverMoved")
        else { throw LoopbackError(description: "no position after the kill") }
        #expect(afterKill.seq == 3)
        for event in ["started", "ended"] {
            let response = try await LoopbackServer.http(
                base: nodeB.base, "POST", "/v1/trips/\(trip.id)/events", token: driver,
                body: #"{"event": "\#(event)", "idempotencyKey": "\#(UUID().uuidString)"}"#)
            #expect(response.status == 200, "\(event)")
        }

        // The rider saw every change once, in order, and the audit log holds each exactly once.
        while versions.values.contains(.completed) == false { _ = try await riderFrame("tripUpdated") }
        #expect(
            versions.sorted { $0.key < $1.key }.map(\.value) == [
                .searching, .driverAssigned, .driverArrived, .onTrip, .completed,
            ])
        let intents = try await scaled.backends.trips.events(tripID: trip.id).map(\.intent)
        #expect(intents.count == 5)
        #expect(Set(intents).count == 5)
        await client.shutdown()
        await scaled.close()
    }

    @Test func aSearchOnAKilledNodeIsTakenOverByTheOther() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: ServerChild.hailBesideThisExecutable),
            "build the hail executable first (swift build --build-tests builds it beside the tests)")
        let scaled = try await ScaledTestBackends.open()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hail-nodes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let secretPath = folder.appendingPathComponent("hail.secret").path
        // The deployment's secret and key set, made first: a scaled node creates neither and takes JWTs only.
        _ = try ServerSecret.loadOrCreate(at: secretPath)
        let key = try DeploymentKey.create(in: folder.path)
        let redisURL = try #require(ProcessInfo.processInfo.environment["HAIL_REDIS_URL"])
        let start = {
            try await ServerChild.node(
                postgresURL: scaled.postgresURL, redisURL: redisURL, schema: scaled.schema,
                prefix: scaled.schema + ":", secret: secretPath, key: key)
        }
        let nodeA = try await start()
        let nodeB = try await start()
        let client = try WebSocketClient()
        defer {
            nodeA.kill()
            nodeB.kill()
            try? FileManager.default.removeItem(at: folder)
        }
        let now = Date()
        let driver = key.token(.driver, "driver-1", now: now)
        let rider = key.token(.rider, "rider-1", now: now)

        // Node A takes the request while no driver is online, then dies with the search.
        let created = try await LoopbackServer.http(
            base: nodeA.base, "POST", "/v1/trips", token: rider, body: LoopbackRideTests.request, key: UUID().uuidString
        )
        let trip = try HailJSON.decode(Trip.self, from: created.body)
        nodeA.kill()

        // A driver comes online on node B; once node A's lease lapses (5 s), node B offers them the trip.
        let driverOnB = TestSocket(
            try await client.connect(to: "ws://127.0.0.1:\(nodeB.port)/v1/drivers/me/live?access_token=\(driver)"))
        _ = try await driverOnB.next("hello", as: DriverServerFrame.self)
        _ = try await LoopbackServer.http(
            base: nodeB.base, "POST", "/v1/drivers/me/status", token: driver, body: #"{"online": true}"#)
        try driverOnB.send(Self.location(seq: 1, Coordinate(lat: 43.7400, lng: 7.4280), t: Date()))
        _ = try await driverOnB.next("ack", as: DriverServerFrame.self)
        guard case .offer(let offer) = try await driverOnB.next("offer", as: DriverServerFrame.self, within: 30) else {
            throw LoopbackError(description: "no offer")
        }
        #expect(offer.trip.id == trip.id)
        let accepted = try await LoopbackServer.http(
            base: nodeB.base, "POST", "/v1/trips/\(trip.id)/accept", token: driver, key: UUID().uuidString)
        #expect(try HailJSON.decode(Trip.self, from: accepted.body).state == .driverAssigned)
        await client.shutdown()
        await scaled.close()
    }
}
