import Foundation
import HailAppStore
import HailClient
import HailCore
import HailDriver
import HailNetTransport
import HailProcess
import HailProtocol
import HailRider
import HailServer
import HailTesting
import HailTime
import Synchronization
import Testing

/// A node drained with SIGTERM, for real: two `hail server` nodes on the shared PostgreSQL (a private schema) and a
/// Redis of the test's own behind the test's balancer, a rider and a driver (`RiderModel`, `DriverModel` on
/// HailClient's transports) on a trip whose streams are on the node that drains. The driver is moved first; the
/// rider, still on the draining node, sees the car move on through the other node before it is moved too.
@Suite("A node drained on SIGTERM hands its streams to the other node", .serialized)
struct DrainTests {
    @MainActor
    @Test(.enabled(if: CrashLoopServices.fromEnvironment != nil, "needs scripts/services.sh"))
    func theDrainedNodeAnswersWhatItTookMovesEveryStreamWith4012AndExitsZeroAndTheAppsCarryOnElsewhere()
        async throws
    {
        let services = try #require(CrashLoopServices.fromEnvironment)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hail-drain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let schema = "hail_drain_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let secretPath = folder.appendingPathComponent("hail.secret").path
        // The deployment's secret and key set first: scaled nodes never create a secret, and take JWTs only.
        _ = try ServerSecret.loadOrCreate(at: secretPath)
        let key = try DeploymentKey.create(in: folder.path)
        // A Redis of the test's own: the suite's other tests load the shared one, and a node whose bus waits more
        // than 3 s for Redis (its PING unanswered) ends every stream with 1013 as it should, before the drain could
        // move them with 4012 (lws's client reports a 1013 as 1002).
        let redis = try PrivateRedis()
        try await redis.start()
        defer { redis.kill() }
        let arguments = [
            "--postgres", services.postgresURL, "--redis", redis.url, "--postgres-schema", schema,
            "--redis-prefix", schema + ":", "--db", "/nonexistent/unused.db", "--jwks", key.jwksPath,
            "--drain-grace-seconds", "1",
            "--drain-spread-seconds", "6", "--drain-seconds", "20",
        ]
        let draining = try CrashLoopServer(storageArguments: arguments, secretPath: secretPath)
        let other = try CrashLoopServer(storageArguments: arguments, secretPath: secretPath)
        let balancer = try CrashLoopBalancer(backends: [draining.port, other.port])
        defer {
            draining.kill(counted: false)
            other.kill(counted: false)
            balancer.stop()
            _ = try? Psql.rows(url: services.postgresURL, "DROP SCHEMA IF EXISTS \(schema) CASCADE")
            try? FileManager.default.removeItem(at: folder)
        }
        // Only the node to drain runs at first: the balancer skips the other, so both apps' streams are on it.
        try await draining.start()
        let now = Date()
        func token(_ role: Role, _ subject: String) -> String { key.token(role, subject, now: now) }
        let connector = SocketConnector(transport: try NetSocketTransport())
        let timeline = Timeline.system()
        let server = balancer.baseURL

        let start = Coordinate(lat: 43.7300, lng: 7.4200)
        let pickup = Coordinate(lat: 43.7330, lng: 7.4200)
        let car = RouteFollower(start: start, speed: 12, timeline: timeline)
        let journal = StreamJournal()
        let driverChannel = CloseRecordingDriverChannel(
            inner: DriverLiveChannel(connector: connector, server: server, token: token(.driver, "drain-driver")),
            journal: journal)
        let driver = DriverModel(
            api: DriverHTTPAPI(
                transport: HTTPTransport(baseURL: server, token: token(.driver, "drain-driver"), timeout: 5)),
            channel: driverChannel, location: car,
            store: try await SQLiteOutboxStore(path: folder.appendingPathComponent("outbox.db").path),
            timeline: timeline, random: SplitMix64(seed: 1))
        let riderChannel = CloseRecordingRiderChannel(
            inner: RiderLiveChannel(baseURL: server, token: token(.rider, "drain-rider"), connector: connector),
            journal: journal)
        let cursors = try await SQLiteCursorStore.open(path: folder.appendingPathComponent("cursor.db").path)
        let rider = RiderModel(
            api: RiderHTTPAPI(
                transport: HTTPTransport(baseURL: server, token: token(.rider, "drain-rider"), timeout: 5)),
            channel: riderChannel, cursors: cursors, random: SplitMix64(seed: 2))

        await driver.start()
        await driver.goOnline()
        try await driver.until("the driver online over the stream") { $0.isOnline && $0.link == .stream }
        rider.screenVisibilityChanged(true)
        await rider.launch()
        await rider.requestRide(
            pickup: pickup, dropoff: Coordinate(lat: pickup.lat + 0.0018, lng: pickup.lng), product: .economy)
        try await driver.until("an offer") { $0.offer != nil }
        await driver.accept()
        try await driver.until("the trip assigned") { $0.trip?.state == .driverAssigned }
        await car.drive(through: [pickup])
        try await until(rider.changes(), "the rider watching the car over the stream") {
            rider.connection == .streaming && (rider.driverLocation?.seq ?? 0) > 1
        }
        try await other.start()

        // Taken before the signal and finished after the listeners closed: still answered.
        let estimate = #"{"pickup":{"lat":43.733,"lng":7.42},"dropoff":{"lat":43.7348,"lng":7.42}}"#
        let riderToken = token(.rider, "drain-rider")
        let port = draining.port
        let inFlight = try await onItsOwnThread { () -> RawSocket in
            let socket = try RawSocket(port: port)
            try socket.send(
                "POST /v1/estimates HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(riderToken)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(estimate.utf8.count)\r\n\r\n"
                    + estimate.prefix(10))
            return socket
        }
        // A third stream straight on the node, to read the close frame's code and reason byte for byte.
        let probeToken = token(.driver, "drain-probe")
        let probe = try await onItsOwnThread { () -> RawSocket in
            let socket = try RawSocket(port: port)
            try socket.upgrade(path: "\(Routes.driverLive.template)?access_token=\(probeToken)", port: port)
            _ = try socket.readText(containing: #""type":"hello""#)
            return socket
        }
        let seenBefore = rider.driverLocation?.seq ?? 0
        let log = try #require(draining.child).errorLines
        let process = try #require(draining.terminate())

        try await within(20, "the drain's first step") {
            for await line in log where line.contains(#""event":"drain_started""#) { return }
        }
        let readiness = try await onItsOwnThread { () -> RawSocket.Response in
            let socket = try RawSocket(port: port)
            try socket.send("GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return try socket.readResponse()
        }
        #expect(readiness.status == 503)
        #expect(readiness.text.contains(#""status":"draining""#))

        try await within(20, "the listeners' close") {
            for await line in log where line.contains(#""event":"drain_listeners_closed""#) { return }
        }
        let refused = await onItsOwnThreadResult { _ = try RawSocket(port: port) }
        #expect(refused == "connect failed: errno \(ECONNREFUSED)")
        let answer = try await onItsOwnThread { () -> RawSocket.Response in
            try inFlight.send(String(estimate.dropFirst(10)))
            return try inFlight.readResponse()
        }
        #expect(answer.status == 200)
        #expect(answer.headers["connection"] == "close")
        #expect(answer.text.contains(#""productID":"economy""#))

        let close = try await onItsOwnThread { try probe.readClose() }
        #expect(close.code == 4012)
        #expect(close.reason == "draining: reconnect now")
        let exit = await withDeadline(30) { await process.waitForExit() }
        #expect(exit == .exited(0))

        // Both apps were told to move, and did: to the other node, resynced, the car moving on the rider's map.
        try await until(rider.changes(), "the rider streaming again with newer positions", within: 30) {
            !riderChannel.closes.isEmpty && rider.connection == .streaming
                && (rider.driverLocation?.seq ?? 0) > seenBefore
        }
        #expect(riderChannel.closes == [4012])
        // Told to move (a state of the channel, read after each of the model's steps), then back on the stream.
        try await driver.until("the driver's stream back after its 4012", within: 30) {
            !driverChannel.closes.isEmpty && $0.link == .stream
        }
        #expect(driverChannel.closes == [4012])
        // Drivers first: the driver was told to move, connected again (to the other node), and the rider, still on
        // the draining node, saw the car move on through the other node before it was told to move itself.
        let steps = journal.entries
        let driverMoved = try #require(steps.firstIndex(of: "driver 4012"))
        let driverBack = try #require(steps[driverMoved...].firstIndex(of: "driver connected"))
        let riderMoved = try #require(steps.firstIndex(of: "rider 4012"))
        #expect(driverBack < riderMoved)
        #expect(steps[driverBack..<riderMoved].contains("rider position"))

        // The rest of the trip through the other node: every tap acknowledged once, the rider sees each state.
        try await until(rider.changes(), "the rider's car at the pickup", within: 60) {
            (rider.driverLocation?.coordinate.distance(to: pickup) ?? .infinity) < 10
        }
        await driver.tap(.arrived)
        try await until(rider.changes(), "the rider told of the arrival") { rider.trip?.state == .driverArrived }
        await driver.tap(.started)
        try await until(rider.changes(), "the rider told of the start") { rider.trip?.state == .onTrip }
        await driver.tap(.ended)
        try await until(rider.changes(), "the rider told of the end") { rider.trip?.state == .completed }
        let tripID = try #require(rider.trip?.id)
        let finalVersion = try #require(rider.trip?.version)
        try await driver.until("the driver's outbox empty") { $0.outbox.entries.isEmpty }

        await driver.shutdown()
        rider.stop()
        await cursors.close()
        await connector.shutdown()
        other.kill(counted: false)
        let stored = try ServerLog.read(postgresURL: services.postgresURL, schema: schema)
        let events = stored.events[tripID] ?? []
        #expect(events.map(\.version) == Array(1...finalVersion))
        #expect(events.map(\.state) == [.searching, .driverAssigned, .driverArrived, .onTrip, .completed])
        #expect(stored.trips[tripID]?.version == finalVersion)
    }

    /// The error a blocking call threw on a thread of its own, as text; nil when it did not throw.
    private func onItsOwnThreadResult(_ body: @escaping @Sendable () throws -> Void) async -> String? {
        do {
            try await onItsOwnThread(body)
            return nil
        } catch {
            return "\(error)"
        }
    }
}

/// What the apps' streams did, in the order it happened: `driver 4012`, `driver connected`, `rider position`,
/// `rider 4012`.
final class StreamJournal: Sendable {
    private let recorded = Mutex<[String]>([])

    /// Every entry so far, in order.
    var entries: [String] { recorded.withLock { $0 } }

    func note(_ entry: String) { recorded.withLock { $0.append(entry) } }
}

/// The rider's live channel, noting the close code of every stream the server closed.
final class CloseRecordingRiderChannel: LiveTripChannel, Sendable {
    let inner: RiderLiveChannel
    private let journal: StreamJournal
    private let recorded = Mutex<[UInt16]>([])

    init(inner: RiderLiveChannel, journal: StreamJournal = StreamJournal()) {
        self.inner = inner
        self.journal = journal
    }

    var closes: [UInt16] { recorded.withLock { $0 } }

    private func note(_ code: UInt16) {
        recorded.withLock { $0.append(code) }
        journal.note("rider \(code)")
    }

    func open(tripID: String, after seq: Int64?) async throws -> AsyncThrowingStream<RiderServerFrame, any Error> {
        let frames = try await inner.open(tripID: tripID, after: seq)
        return AsyncThrowingStream { continuation in
            let relay = Task { [self] in
                do {
                    for try await frame in frames {
                        if case .driverMoved = frame { journal.note("rider position") }
                        continuation.yield(frame)
                    }
                    continuation.finish()
                } catch {
                    if let code = (error as? CallError)?.closeCode { note(code) }
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in relay.cancel() }
        }
    }
}

/// The driver's live channel, noting how the server closed each connection.
final class CloseRecordingDriverChannel: DriverChannel, Sendable {
    let inner: DriverLiveChannel
    private let journal: StreamJournal
    private let recorded = Mutex<[UInt16]>([])

    init(inner: DriverLiveChannel, journal: StreamJournal = StreamJournal()) {
        self.inner = inner
        self.journal = journal
    }

    /// The close codes the driver's stream loop was told, in order.
    var closes: [UInt16] { recorded.withLock { $0 } }

    func connect() async throws -> AsyncStream<DriverServerFrame> {
        let frames = try await inner.connect()
        journal.note("driver connected")
        return frames
    }
    func send(_ batch: LocationBatch) async throws { try await inner.send(batch) }
    func disconnect() async { await inner.disconnect() }
    func lastServerClose() async -> UInt16? {
        let code = await inner.lastServerClose()
        if let code {
            recorded.withLock { $0.append(code) }
            journal.note("driver \(code)")
        }
        return code
    }
}
