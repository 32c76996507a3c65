import Foundation
import HailCore
import HailProtocol
import HailScale
import HailServer
import Testing

/// Offers and ingest state shared through Redis: a driver may answer an offer, or carry on sending
/// positions, on a node other than the one that made the offer or took their last batch.
@Suite(
    "Offers and ingest state across nodes",
    .enabled(
        if: ScaleServices.hasPostgres && ScaleServices.hasRedis, "start PostgreSQL and Redis with scripts/services.sh"))
struct CrossNodeTests {
    static let pickup = Coordinate(lat: 43.7396, lng: 7.4276)
    static let near = Coordinate(lat: 43.7400, lng: 7.4280)

    /// Two nodes on a fresh schema and key prefix.
    static func withTwoNodes(_ body: (ScaleNode, ScaleNode) async throws -> Void) async throws {
        try await ScaleServices.withFreshSchema { url, schema in
            let redisURL = try #require(ScaleServices.redisURL)
            let prefix = ScaleServices.uniqueName("test") + ":"
            let nodeA = try await ScaleNode(postgresURL: url, schema: schema, redisURL: redisURL, prefix: prefix)
            let nodeB = try await ScaleNode(postgresURL: url, schema: schema, redisURL: redisURL, prefix: prefix)
            defer {
                nodeA.close()
                nodeB.close()
            }
            try await body(nodeA, nodeB)
        }
    }

    @Test func aTripRequestedOnOneNodeIsOfferedToADriverOnTheOtherAndAcceptedThere() async throws {
        try await Self.withTwoNodes { nodeA, nodeB in
            // The driver's positions go to node A; their offers come over the bus.
            let offers = await nodeA.services.bus.subscribe(to: .driver("driver-1"))
            try await nodeA.online(driver: "driver-1", at: Self.near)
            let created = await nodeB.call(
                "POST", "/v1/trips", token: nodeB.token(.rider, "rider-1"), body: TwoNodeTests.request,
                key: UUID().uuidString)
            #expect(created.status == 201)
            let trip = try HailJSON.decode(Trip.self, from: created.body)
            let offer = await RedisTests.first(1, of: offers)
            #expect(offer.first?.text.contains(trip.id) == true)
            #expect(await nodeA.services.dispatcher.currentOffer(for: "driver-1")?.tripID == trip.id)

            let watching = await nodeB.services.bus.subscribe(to: .trip(trip.id))
            let accepted = await nodeA.call(
                "POST", "/v1/trips/\(trip.id)/accept", token: nodeA.token(.driver, "driver-1"), key: UUID().uuidString)
            #expect(accepted.status == 200)
            #expect(try HailJSON.decode(Trip.self, from: accepted.body).driver?.id == "driver-1")

            // Node A learns from the shared state that its driver now serves the trip: the rider on node B
            // sees the car move.
            try await nodeA.send(driver: "driver-1", seq: 2, at: Self.pickup, t: nodeA.services.time.now() + 2)
            let seen = await RedisTests.first(2, of: watching)
            #expect(seen.map { $0.text.contains("driverAssigned") } == [true, false])
            #expect(seen.last?.text.contains("driverMoved") == true)
            #expect(await nodeB.services.fleet.position(driverID: "driver-1")?.seq == 2)

            // Node B, which searched, stops searching once it sees the offer answered.
            await nodeB.services.dispatcher.evaluate()
            #expect(await nodeB.services.dispatcher.searchingTripIDs == [])
        }
    }

    @Test func theSameOfferAcceptedOnTwoNodesAtOnceHasExactlyOneWinner() async throws {
        try await Self.withTwoNodes { nodeA, nodeB in
            for round in 1...10 {
                let driver = "driver-\(round)"
                try await nodeA.online(driver: driver, at: Self.near)
                let created = await nodeA.call(
                    "POST", "/v1/trips", token: nodeA.token(.rider, "rider-\(round)"), body: TwoNodeTests.request,
                    key: UUID().uuidString)
                let trip = try HailJSON.decode(Trip.self, from: created.body)
                #expect(await nodeB.services.dispatcher.currentOffer(for: driver)?.tripID == trip.id)
                let token = nodeA.token(.driver, driver)
                async let onA = nodeA.call("POST", "/v1/trips/\(trip.id)/accept", token: token, key: UUID().uuidString)
                async let onB = nodeB.call("POST", "/v1/trips/\(trip.id)/accept", token: token, key: UUID().uuidString)
                let statuses = await [onA.status, onB.status].sorted()
                #expect(statuses == [200, 409], "round \(round)")
                let events = try await nodeA.services.trips.events(tripID: trip.id).map(\.intent)
                #expect(events.filter { $0 == "offerAccepted" }.count == 1, "round \(round)")
                // The driver ends the trip quickly so the next round's driver is the nearest free one.
                await nodeA.call(
                    "POST", "/v1/trips/\(trip.id)/cancel", token: nodeA.token(.rider, "rider-\(round)"),
                    key: UUID().uuidString)
                try await nodeA.services.fleet.setStatus(driverID: driver, online: false, degraded: false)
            }
        }
    }

    @Test func aDeclineOnAnotherNodeSendsTheTripToTheNextDriver() async throws {
        try await Self.withTwoNodes { nodeA, nodeB in
            try await nodeA.online(driver: "near", at: Self.near)
            try await nodeA.online(driver: "far", at: Coordinate(lat: 43.7486, lng: 7.4276))
            let created = await nodeA.call(
                "POST", "/v1/trips", token: nodeA.token(.rider, "rider-1"), body: TwoNodeTests.request,
                key: UUID().uuidString)
            let trip = try HailJSON.decode(Trip.self, from: created.body)
            #expect(await nodeA.services.dispatcher.currentOffer(for: "near")?.tripID == trip.id)
            let declined = await nodeB.call("POST", "/v1/trips/\(trip.id)/decline", token: nodeB.token(.driver, "near"))
            #expect(declined.status == 204)
            // A second answer to the same offer finds none.
            #expect(
                await nodeA.call("POST", "/v1/trips/\(trip.id)/decline", token: nodeA.token(.driver, "near")).status
                    == 409)
            await nodeA.services.dispatcher.evaluate()
            #expect(await nodeB.services.dispatcher.currentOffer(for: "far")?.tripID == trip.id)
            #expect(await nodeB.services.dispatcher.currentOffer(for: "near") == nil)
        }
    }

    @Test func aDriverHoldingOneNodesOfferIsNotOfferedAnotherNodesTripWhichGoesToTheNextDriver() async throws {
        try await Self.withTwoNodes { nodeA, nodeB in
            try await nodeA.online(driver: "near", at: Self.near)
            try await nodeA.online(driver: "far", at: Coordinate(lat: 43.7486, lng: 7.4276))
            let first = await nodeA.call(
                "POST", "/v1/trips", token: nodeA.token(.rider, "rider-1"), body: TwoNodeTests.request,
                key: UUID().uuidString)
            let firstTrip = try HailJSON.decode(Trip.self, from: first.body)
            // Node B searches for its own trip; its dispatcher does not know about node A's offer to "near".
            let second = await nodeB.call(
                "POST", "/v1/trips", token: nodeB.token(.rider, "rider-2"), body: TwoNodeTests.request,
                key: UUID().uuidString)
            let secondTrip = try HailJSON.decode(Trip.self, from: second.body)
            #expect(await nodeB.services.dispatcher.currentOffer(for: "near")?.tripID == firstTrip.id)
            #expect(await nodeA.services.dispatcher.currentOffer(for: "far")?.tripID == secondTrip.id)
        }
    }

    @Test func twentyNodesClaimingOneOfferAtOnceHaveExactlyOneWinner() async throws {
        let redisURL = try #require(ScaleServices.redisURL)
        let client = RedisClient(endpoint: try RedisEndpoint(url: redisURL), size: 4)
        defer { client.close() }
        let store = RedisOfferStore(client: client, prefix: ScaleServices.uniqueName("offers"))
        let now = Date(timeIntervalSince1970: 1_796_220_000)
        for round in 1...5 {
            let offer = DispatchMachine.Offer(tripID: "trip-\(round)", driverID: "driver-1", expiresAt: now + 15)
            #expect(try await store.place(offer, now: now))
            // One driver, one offer: another trip's offer is refused while this one is out.
            let other = DispatchMachine.Offer(tripID: "other", driverID: "driver-1", expiresAt: now + 15)
            #expect(try await store.place(other, now: now) == false)
            let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await store.claim(tripID: offer.tripID, driverID: "driver-1", now: now) }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(wins == 1, "round \(round)")
            #expect(try await store.status(of: offer, now: now) == .answering)
            #expect(try await store.offer(heldBy: "driver-1", now: now) == nil)
            try await store.remove(tripID: offer.tripID, driverID: "driver-1")
            #expect(try await store.status(of: offer, now: now) == .gone)
        }
    }

    @Test func aDriverWhoMovesToAnotherNodeKeepsTheirSeqAndTheirFilter() async throws {
        try await Self.withTwoNodes { nodeA, nodeB in
            try await nodeA.online(driver: "driver-1", at: Self.near)
            let t0 = nodeA.services.time.now()
            let batch = { (seq: Int64, coordinate: Coordinate, seconds: Double) in
                LocationBatch(
                    seq: seq,
                    points: [
                        LocationPoint(
                            lat: coordinate.lat, lng: coordinate.lng, accuracy: 5, heading: 90, speed: 8,
                            t: t0.addingTimeInterval(seconds))
                    ])
            }
            let onA = try await nodeA.services.fleet.ingest(
                driverID: "driver-1", batch: batch(5, Self.pickup, 4), client: nil)
            #expect(onA.applied)
            // The same batch replayed to node B, and an older one, are acknowledged and ignored.
            let replayed = try await nodeB.services.fleet.ingest(
                driverID: "driver-1", batch: batch(5, Self.pickup, 4), client: nil)
            #expect(replayed.applied == false)
            #expect(replayed.dropped == ["duplicate": 1])
            let older = try await nodeB.services.fleet.ingest(
                driverID: "driver-1", batch: batch(3, Self.near, 2), client: nil)
            #expect(older.applied == false)
            // Node B judges speed from node A's last accepted fix: 1 km in 1 s is dropped.
            let teleport = try await nodeB.services.fleet.ingest(
                driverID: "driver-1", batch: batch(6, Coordinate(lat: 43.7486, lng: 7.4276), 5), client: nil)
            #expect(teleport.applied)
            #expect(teleport.dropped == ["impossibleSpeed": 1])
            let next = try await nodeB.services.fleet.ingest(
                driverID: "driver-1", batch: batch(7, Self.near, 8), client: nil)
            #expect(next.accepted == 1)
            #expect(await nodeA.services.fleet.position(driverID: "driver-1")?.seq == 7)
            #expect(await nodeA.services.fleet.status(driverID: "driver-1").online)
        }
    }
}
