import Foundation
import HailCore
import HailNet
import HailProtocol
import HailServer
import Testing

/// The operator's stream `/v1/fleet/live` through the real server on loopback, on a manual clock: hello,
/// the fleet's snapshot, then the changes of each tick of the feed, each in its class.
@Suite("The operator's fleet stream over loopback", .serialized)
struct OperatorStreamTests {
    static let start = Coordinate(lat: 43.7384, lng: 7.4246)

    /// The server on loopback with its feed's viewer connected and its snapshot read.
    struct Watching {
        let harness: ServerHarness
        let server: BackendServer
        let client: WebSocketClient
        let socket: TestSocket
        let path: String

        /// The next frame of `type`, decoded.
        func next(_ type: String) async throws -> OperatorServerFrame {
            try await socket.next(type, as: OperatorServerFrame.self)
        }

        /// Lets one tick of the feed happen: both the dispatcher and the feed asleep, then a second passes.
        func tick() async {
            await harness.clock.sleepers(atLeast: 2)
            harness.advance(seconds: 1)
        }

        func stop() async {
            await client.shutdown()
            await server.shutdown()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
    }

    static func watching(before: (ServerHarness) async -> Void) async throws -> (Watching, OperatorServerFrame) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-ops-\(UUID().uuidString).db")
            .path
        let (harness, server) = try await ServerHarness.loopback(databasePath: path)
        await before(harness)
        let client = try WebSocketClient()
        let url = "ws://127.0.0.1:\(server.port)/v1/fleet/live?access_token=\(harness.token(.operator, "ops"))"
        let socket = TestSocket(try await client.connect(to: url))
        let watching = Watching(harness: harness, server: server, client: client, socket: socket, path: path)
        let hello = try await watching.next("hello")
        #expect(hello == .hello(serverTime: harness.now))
        return (watching, try await watching.next("fleetSnapshot"))
    }

    @Test func aViewerGetsTheFleetFirstThenEachChangeInItsClass() async throws {
        let (w, snapshot) = try await Self.watching { h in await h.onlineDriver("driver-1", at: Self.start) }
        let h = w.harness
        let card = await GeneratedDriverDirectory().card(for: "driver-1")
        guard case .fleetSnapshot(_, let cars, let trips, let stats) = snapshot else {
            Issue.record("\(snapshot)")
            return await w.stop()
        }
        #expect(cars.map(\.driverID) == ["driver-1"])
        #expect(cars.first?.driver == card)
        #expect(cars.first?.location.seq == 1)
        #expect(cars.first?.online == true)
        #expect(cars.first?.tripID == nil)
        #expect(trips == [])
        #expect(
            stats
                == FleetStats(
                    driversOnline: 1, driversDegraded: 0, tripsByState: [:], positionAgeP50: nil, positionAgeP99: nil,
                    budgetSeconds: 5, reconnects: 0,
                    operability: OperabilityStats(
                        sessions: 0, crashFreeSessions: nil, batteryPercentPerActiveHour: nil,
                        degradedShareOfOnlineTime: nil, resyncs: 0, framesPerResync: nil, tripVersionsPerResync: nil,
                        refusedProposals: 0, flagCohorts: 0, flagsReadAt: ServerHarness.epoch,
                        flagsLastReadApplied: true)
                ))

        // A request: the trip appears, searching, as an essential change.
        let request = await h.call(
            "POST", "/v1/trips", token: h.token(.rider, "rider-1"), json: ServerHarness.requestBody(),
            key: UUID().uuidString)
        let trip = try h.trip(from: request)
        await w.tick()
        let changed = try await w.next("fleetChanged")
        guard case .fleetChanged(_, let changedCars, let gone, let changedTrips) = changed else {
            Issue.record("\(changed)")
            return await w.stop()
        }
        #expect(changedCars == [])
        #expect(gone == [])
        #expect(changedTrips.map(\.id) == [trip.id])
        #expect(changedTrips.first?.state == .searching)
        #expect(changedTrips.first?.version == 1)
        #expect(changedTrips.first?.riderID == "rider-1")
        #expect(changedTrips.first?.pickup == ServerHarness.pickup)

        // The driver moves: a disposable carsMoved with the new seq, and the live numbers.
        let moved = Coordinate(lat: 43.7386, lng: 7.4246)
        await h.sendLocation("driver-1", seq: 2, at: moved)
        await w.tick()
        let moves = try await w.next("carsMoved")
        guard case .carsMoved(_, let list) = moves else {
            Issue.record("\(moves)")
            return await w.stop()
        }
        #expect(list.map(\.driverID) == ["driver-1"])
        #expect(list.first?.location.seq == 2)
        #expect(list.first?.location.coordinate == moved)
        let numbers = try await w.next("fleetStats")
        guard case .fleetStats(_, let live) = numbers else { return await w.stop() }
        #expect(live.driversOnline == 1)
        #expect(live.tripsByState == ["searching": 1])

        // The rider cancels: the trip's final state goes out once, then it is gone.
        let cancel = await h.call(
            "POST", "/v1/trips/\(trip.id)/cancel", token: h.token(.rider, "rider-1"), key: UUID().uuidString)
        #expect(cancel.status == 200)
        await w.tick()
        let ended = try await w.next("fleetChanged")
        guard case .fleetChanged(_, _, _, let endedTrips) = ended else { return await w.stop() }
        #expect(endedTrips.map(\.state) == [.cancelled])
        #expect(endedTrips.first?.version == 2)

        // The driver goes offline: the car leaves the map.
        await h.call("POST", "/v1/drivers/me/status", token: h.token(.driver, "driver-1"), json: #"{"online": false}"#)
        await w.tick()
        let left = try await w.next("fleetChanged")
        #expect(left == .fleetChanged(at: h.now, cars: [], carsGone: ["driver-1"], trips: []))
        await w.stop()
    }

    @Test func aDegradedDriverIsAnEssentialChangeAndCounted() async throws {
        let (w, _) = try await Self.watching { h in await h.onlineDriver("driver-1", at: Self.start) }
        let h = w.harness
        await h.call(
            "POST", "/v1/drivers/me/status", token: h.token(.driver, "driver-1"),
            json: #"{"online": true, "degraded": true}"#)
        await w.tick()
        let changed = try await w.next("fleetChanged")
        guard case .fleetChanged(_, let cars, _, _) = changed else { return await w.stop() }
        #expect(cars.map(\.driverID) == ["driver-1"])
        #expect(cars.first?.degraded == true)
        let numbers = try await w.next("fleetStats")
        guard case .fleetStats(_, let live) = numbers else { return await w.stop() }
        #expect(live.driversOnline == 1)
        #expect(live.driversDegraded == 1)
        await w.stop()
    }

    @Test(arguments: [Role.rider, Role.driver])
    func onlyAnOperatorTokenMayWatch(role: Role) async throws {
        let server = try await LoopbackServer.start()
        let socket = try await server.socket("/v1/fleet/live", token: server.token(role, "someone"))
        let closed = await socket.closed()
        #expect(closed.code == WebSocketCloseCode.forbidden.rawValue)
        await server.stop()
    }
}
