import Foundation
import HailClient
import HailCore
import HailDriver
import HailNetTransport
import HailProcess
import HailProtocol
import HailServer
import Testing

/// The bug the scaled crash loop found, step by step: a rider cancels while their driver's node is dead, and
/// the driver, reconnected, must learn it though the stream replays only an active trip. Two
/// `hail server --postgres --redis` nodes: the driver's app talks to node A only, the rider to node B only, so
/// the order of events is fixed.
@Suite("Crash loop finding: a cancellation sent while the driver's node is down", .serialized)
@MainActor
struct CrashLoopMissedCancelTests {
    @Test(
        .enabled(
            if: CrashLoopServices.fromEnvironment != nil,
            """
            needs PostgreSQL and Redis: run `eval "$(bash scripts/services.sh)"` (sets HAIL_POSTGRES_URL and \
            HAIL_REDIS_URL), or `make test`
            """))
    func theDriverLearnsOfACancellationMadeWhileTheirNodeWasDown() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: ServerChild.hailBesideThisExecutable),
            "build the hail executable first (swift build --build-tests builds it beside the tests)")
        let services = try #require(CrashLoopServices.fromEnvironment)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hail-missed-cancel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let deployment = try CrashLoopDeployment.scaled(folder: folder, services: services, nodeCount: 2)
        defer {
            deployment.shutdown()
            deployment.removeStorage()
        }
        let (nodeA, nodeB) = (deployment.nodes[0], deployment.nodes[1])
        let now = Date()
        try await deployment.startStoppedNodes()
        let connector = SocketConnector(transport: try NetSocketTransport())
        let pickup = Coordinate(lat: 43.7300, lng: 7.4200)
        let driver = try await CrashLoopDriver(
            index: 1, server: nodeA.baseURL,
            token: try deployment.token(.driver, "driver-1", now: now),
            connector: connector, outboxPath: folder.appendingPathComponent("driver-1.db").path,
            start: Coordinate(lat: pickup.lat - 0.0009, lng: pickup.lng))
        let rider = RiderHTTPAPI(
            transport: HTTPTransport(
                baseURL: nodeB.baseURL,
                token: try deployment.token(.rider, "rider-1", now: now), timeout: 5))

        // The driver, online on node A, accepts the trip the rider requested on node B.
        await driver.start(autopilot: false)
        let requested = try await rider.requestTrip(
            TripRequest(
                pickup: pickup, dropoff: Coordinate(lat: pickup.lat + 0.0018, lng: pickup.lng), productID: .economy),
            idempotencyKey: UUID())
        try await driver.model.until("an offer") { $0.offer?.trip.id == requested.id }
        await driver.model.accept()
        try await driver.model.until("assigned") {
            $0.trip?.state == .driverAssigned && $0.outbox.entries.isEmpty
        }

        // Node A dies; the rider cancels on node B; node A comes back and the driver reconnects to it.
        nodeA.kill()
        let cancelled = try await rider.cancel(tripID: requested.id, idempotencyKey: UUID())
        #expect(cancelled.state == .cancelled)
        #expect(cancelled.version == 3)
        try await nodeA.start()
        try await driver.model.until("reconnected", within: 60) { $0.link == .stream }

        // The stream replays only an active trip, so the app reads the one it shows by id: cancelled.
        try await driver.model.until("the cancellation", within: 10) {
            $0.trip?.id == requested.id && $0.trip?.state == .cancelled
        }
        #expect(driver.model.trip?.version == 3)
        #expect(driver.model.screen.headline == .cancelled)

        // Free again: the rider's next request is offered to this driver.
        let again = try await rider.requestTrip(
            TripRequest(
                pickup: pickup, dropoff: Coordinate(lat: pickup.lat + 0.0018, lng: pickup.lng), productID: .economy),
            idempotencyKey: UUID())
        try await driver.model.until("the next offer") { $0.offer?.trip.id == again.id }
        #expect(driver.model.screen.headline == .newOffer)
        _ = try await rider.cancel(tripID: again.id, idempotencyKey: UUID())

        await driver.stop()
        await connector.shutdown()
    }
}
