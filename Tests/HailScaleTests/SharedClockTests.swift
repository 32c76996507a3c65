import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

@testable import HailScale

/// Nothing two nodes compare depends on their clocks: leases, offers and last-seen times go by Redis's clock.
/// The nodes here run on manual clocks days away from Redis's, and a node 120 s ahead of the other.
@Suite(
    "Leases, offers and last-seen times on Redis's clock",
    .enabled(
        if: ScaleServices.hasPostgres && ScaleServices.hasRedis, "start PostgreSQL and Redis with scripts/services.sh"))
struct SharedClockTests {
    static let pickup = CrossNodeTests.pickup
    static let near = CrossNodeTests.near

    /// A slow node (A) and one whose clock is `skew` seconds ahead (B), on a fresh schema and key prefix.
    static func withSkewedNodes(
        skew: TimeInterval = 120, _ body: (ScaleNode, ScaleNode, String) async throws -> Void
    ) async throws {
        try await ScaleServices.withFreshSchema { url, schema in
            let redisURL = try #require(ScaleServices.redisURL)
            let prefix = ScaleServices.uniqueName("test") + ":"
            let slow = try await ScaleNode(postgresURL: url, schema: schema, redisURL: redisURL, prefix: prefix)
            let fast = try await ScaleNode(
                postgresURL: url, schema: schema, redisURL: redisURL, prefix: prefix, clockOffset: skew)
            defer {
                slow.close()
                fast.close()
            }
            try await body(slow, fast, prefix)
        }
    }

    /// Runs one Redis command through `client`.
    @discardableResult
    static func redis(_ client: RedisClient, _ command: [String]) async throws -> RedisReply {
        try await client.run { connection in try connection.command(command).checked() }
    }

    /// Redis's clock now, in seconds.
    static func redisNow(_ client: RedisClient) async throws -> Double {
        try await RedisClockReference(client: client).referenceTime().timeIntervalSince1970
    }

    /// Makes `tripID`'s search lease lapse now, as Redis's clock would once its node stopped renewing it.
    static func lapse(_ tripID: String, node: ScaleNode, prefix: String) async throws {
        try await redis(node.redis, ["ZADD", prefix + "searches", "0", tripID])
    }

    static func request(_ node: ScaleNode, rider: String) async throws -> Trip {
        let created = await node.call(
            "POST", "/v1/trips", token: node.token(.rider, rider), body: TwoNodeTests.request, key: UUID().uuidString)
        #expect(created.status == 201)
        return try HailJSON.decode(Trip.self, from: created.body)
    }

    @Test func aDriverSeenThroughTheSlowNodeStaysIndexedAndIsOfferedTheFastNodesTripAndTheOtherWayRound()
        async throws
    {
        try await Self.withSkewedNodes { slow, fast, _ in
            for (ingesting, requesting, driver) in [(slow, fast, "driver-slow"), (fast, slow, "driver-fast")] {
                try await ingesting.online(driver: driver, at: Self.near)
                // Each node sweeps the index as its dispatch loop does: neither evicts a driver just seen.
                #expect(try await fast.services.fleet.evictSilentDrivers() == [])
                #expect(try await slow.services.fleet.evictSilentDrivers() == [])
                let trip = try await Self.request(requesting, rider: "rider-of-\(driver)")
                // The offer the requesting node placed is live on the ingesting node, and accepted through it.
                #expect(await ingesting.services.dispatcher.currentOffer(for: driver)?.tripID == trip.id)
                let accepted = await ingesting.call(
                    "POST", "/v1/trips/\(trip.id)/accept", token: ingesting.token(.driver, driver),
                    key: UUID().uuidString)
                #expect(accepted.status == 200)
                #expect(try HailJSON.decode(Trip.self, from: accepted.body).driver?.id == driver)
            }
        }
    }

    @Test func noSearchIsStolenFromItsLiveOwnerByANodeAheadAndAnAdoptedOneKeepsItsDeadline() async throws {
        try await Self.withSkewedNodes { slow, fast, prefix in
            let trip = try await Self.request(slow, rider: "rider-1")
            #expect(await slow.services.dispatcher.searchingTripIDs == [trip.id])
            // The fast node, 120 s ahead, leaves the slow node's live lease alone, round after round.
            for _ in 0..<Dispatcher.adoptionScanRounds {
                await fast.services.dispatcher.keepSearchesAlive()
                await slow.services.dispatcher.keepSearchesAlive()
            }
            #expect(await fast.services.dispatcher.searchingTripIDs == [])
            #expect(await slow.services.dispatcher.searchingTripIDs == [trip.id])

            // The slow node dies: its lease lapses by Redis's clock and the fast node adopts the search.
            try await Self.lapse(trip.id, node: slow, prefix: prefix)
            await fast.services.dispatcher.keepSearchesAlive()
            #expect(await fast.services.dispatcher.searchingTripIDs == [trip.id])
            try await fast.online(driver: "driver-1", at: Self.near)
            await fast.services.dispatcher.evaluate()
            #expect(await fast.services.dispatcher.currentOffer(for: "driver-1")?.tripID == trip.id)
            // The slow node comes back from its stall: it lost the lease, so it drops the search.
            await slow.services.dispatcher.keepSearchesAlive()
            #expect(await slow.services.dispatcher.searchingTripIDs == [])

            // The search gives up a minute after the request, by the lease's deadline: not at once because the
            // request was dated by a clock 120 s behind the adopter's.
            fast.clock.advance(by: .seconds(30))
            await fast.services.dispatcher.evaluate()
            #expect(try await fast.services.trips.record(id: trip.id)?.trip.state == .searching)
            fast.clock.advance(by: .seconds(31))
            await fast.services.dispatcher.evaluate()
            #expect(try await fast.services.trips.record(id: trip.id)?.trip.state == .noDriversFound)
        }
    }

    @Test func theAdopterTakesOverTheOfferTheStalledNodeLeftOutAndOffersNoSecondDriver() async throws {
        try await Self.withSkewedNodes { slow, fast, prefix in
            try await slow.online(driver: "near", at: Self.near)
            try await fast.online(driver: "far", at: Coordinate(lat: 43.7486, lng: 7.4276))
            let trip = try await Self.request(slow, rider: "rider-1")
            #expect(await fast.services.dispatcher.currentOffer(for: "near")?.tripID == trip.id)
            // The slow node stalls past its lease; the fast node adopts the search.
            try await Self.lapse(trip.id, node: slow, prefix: prefix)
            await fast.services.dispatcher.keepSearchesAlive()
            await fast.services.dispatcher.evaluate()
            // The trip stays out to one driver: the far one is not offered it beside the near one.
            #expect(await fast.services.dispatcher.currentOffer(for: "far") == nil)
            #expect(await slow.services.dispatcher.currentOffer(for: "near")?.tripID == trip.id)
            // The stalled node wakes, finds the search taken and leaves the offer where it is.
            await slow.services.dispatcher.keepSearchesAlive()
            #expect(await slow.services.dispatcher.searchingTripIDs == [])
            #expect(await fast.services.dispatcher.currentOffer(for: "near")?.tripID == trip.id)
            // The near driver declines through the slow node: the adopter moves on to the far one.
            let declined = await slow.call("POST", "/v1/trips/\(trip.id)/decline", token: slow.token(.driver, "near"))
            #expect(declined.status == 204)
            await fast.services.dispatcher.evaluate()
            #expect(await slow.services.dispatcher.currentOffer(for: "far")?.tripID == trip.id)
        }
    }

    @Test func aSearchWhoseLeaseRedisLostIsAdoptedFromTheTripStoreUnlessItsOwnerRenewsFirst() async throws {
        try await Self.withSkewedNodes { slow, fast, prefix in
            let kept = try await Self.request(slow, rider: "rider-1")
            let orphan = try await Self.request(slow, rider: "rider-2")
            // Redis loses both leases (restarted empty, say).
            try await Self.redis(slow.redis, ["DEL", prefix + "searches", prefix + "searches:owners"])
            // The owner renews one of them before anyone looks: it keeps it. Then it dies.
            await slow.services.dispatcher.keepSearchesAlive()
            try await Self.redis(slow.redis, ["HDEL", prefix + "searches:owners", orphan.id])
            try await Self.redis(slow.redis, ["ZREM", prefix + "searches", orphan.id])
            // The other node scans the trip store every few rounds and adopts only the search no lease covers.
            for _ in 0..<Dispatcher.adoptionScanRounds - 1 { await fast.services.dispatcher.keepSearchesAlive() }
            #expect(await fast.services.dispatcher.searchingTripIDs == [])
            await fast.services.dispatcher.keepSearchesAlive()
            #expect(await fast.services.dispatcher.searchingTripIDs == [orphan.id])
            #expect(await slow.services.dispatcher.searchingTripIDs.sorted() == [kept.id, orphan.id].sorted())
            await slow.services.dispatcher.keepSearchesAlive()
            #expect(await slow.services.dispatcher.searchingTripIDs == [kept.id])
        }
    }

    @Test func anOfferIsClaimableForItsWholeLifeWhateverTheClaimingNodesClock() async throws {
        let client = RedisClient(endpoint: try RedisEndpoint(url: try #require(ScaleServices.redisURL)))
        defer { client.close() }
        let offersPrefix = ScaleServices.uniqueName("offers")
        let store = RedisOfferStore(client: client, prefix: offersPrefix)
        let placedAt = Date(timeIntervalSince1970: 1_796_220_000)
        let offer = DispatchMachine.Offer(tripID: "trip-1", driverID: "driver-1", expiresAt: placedAt + 15)
        #expect(try await store.place(offer, now: placedAt))
        // A node 120 s ahead sees it outstanding, dated on its own clock, and claims it.
        let ahead = placedAt + 120
        let seen = try #require(try await store.offer(heldBy: "driver-1", now: ahead))
        #expect(seen.tripID == "trip-1")
        #expect((ahead + 14...ahead + 15).contains(seen.expiresAt))
        #expect(try await store.status(of: offer, now: ahead) == .outstanding)
        #expect(try await store.claim(tripID: "trip-1", driverID: "driver-1", now: ahead))
        #expect(try await store.status(of: offer, now: placedAt - 120) == .answering)
        try await store.remove(tripID: "trip-1", driverID: "driver-1")

        // Once Redis's clock ends an offer, no node's clock brings it back.
        let second = DispatchMachine.Offer(tripID: "trip-2", driverID: "driver-1", expiresAt: placedAt + 15)
        #expect(try await store.place(second, now: placedAt))
        try await Self.redis(client, ["PEXPIRE", offersPrefix + ":driver-1", "0"])
        #expect(try await store.claim(tripID: "trip-2", driverID: "driver-1", now: placedAt - 3600) == false)
        #expect(try await store.status(of: second, now: placedAt - 3600) == .gone)
    }

    @Test func anOfferFromANodeThatLostTheSearchIsRefusedByTheFence() async throws {
        let client = RedisClient(endpoint: try RedisEndpoint(url: try #require(ScaleServices.redisURL)))
        defer { client.close() }
        let prefix = ScaleServices.uniqueName("fence")
        let leases = RedisSearchLeases(client: client, prefix: prefix + ":searches")
        let offers = RedisOfferStore(client: client, prefix: prefix + ":offers", leasesPrefix: prefix + ":searches")
        let now = Date(timeIntervalSince1970: 1_796_220_000)
        let request = SearchLeaseRequest(searchTime: 60, restart: true)
        let first = try #require(try await leases.hold(tripID: "trip-1", owner: "a", duration: 5, request: request))
        #expect(first.remaining == 60)
        // Node b cannot take a live lease, however late its clock says it is (it passes none).
        #expect(try await leases.hold(tripID: "trip-1", owner: "b", duration: 5, request: request) == nil)
        let fenceA = SearchFence(tripID: "trip-1", token: first.token)
        let toX = DispatchMachine.Offer(tripID: "trip-1", driverID: "x", expiresAt: now + 15)
        #expect(try await offers.place(toX, now: now, fence: fenceA) == .placed)

        // Node a stalls; its lease lapses; node b takes the search under the next token, deadline and all.
        try await Self.redis(client, ["ZADD", prefix + ":searches", "0", "trip-1"])
        #expect(try await leases.lapsed(limit: 10) == ["trip-1"])
        #expect(try await leases.unheld(["trip-1", "trip-2"]) == ["trip-1", "trip-2"])
        let second = try #require(
            try await leases.hold(
                tripID: "trip-1", owner: "b", duration: 5, request: SearchLeaseRequest(searchTime: 15)))
        #expect(second.token == first.token + 1)
        #expect((59...60).contains(second.remaining))
        #expect(try await leases.unheld(["trip-1"]) == [])

        // Node a wakes and acts on the lease it lost: refused, and its renewal too.
        let toY = DispatchMachine.Offer(tripID: "trip-1", driverID: "y", expiresAt: now + 15)
        #expect(try await offers.place(toY, now: now, fence: fenceA) == .fenced)
        let renewal = SearchLeaseRequest(token: first.token, searchTime: 60)
        #expect(try await leases.hold(tripID: "trip-1", owner: "a", duration: 5, request: renewal) == nil)
        // Node b's offer to y: the trip is still out to x (node a's offer, live), so node b is handed that one.
        let fenceB = SearchFence(tripID: "trip-1", token: second.token)
        guard case .tripOffered(let existing) = try await offers.place(toY, now: now, fence: fenceB) else {
            Issue.record("a second live offer of one trip")
            return
        }
        #expect(existing.driverID == "x")
        #expect((now + 14...now + 15).contains(existing.expiresAt))
        // x declines (the answer removes the offer); the trip goes to y, who is then busy for any other trip.
        try await offers.remove(tripID: "trip-1", driverID: "x")
        #expect(try await offers.place(toY, now: now, fence: fenceB) == .placed)
        let another = DispatchMachine.Offer(tripID: "trip-2", driverID: "y", expiresAt: now + 15)
        #expect(try await offers.place(another, now: now, fence: nil) == .driverBusy)
        // A release by the node that lost it changes nothing; the holder's ends it.
        try await leases.release(tripID: "trip-1", owner: "a")
        #expect(try await leases.unheld(["trip-1"]) == [])
        try await leases.release(tripID: "trip-1", owner: "b")
        #expect(try await leases.unheld(["trip-1"]) == ["trip-1"])
        #expect(try await leases.lapsed(limit: 10) == [])
    }

    @Test func evictionGoesBySilenceOnRedisClockWhateverTheCallersClock() async throws {
        let client = RedisClient(endpoint: try RedisEndpoint(url: try #require(ScaleServices.redisURL)))
        defer { client.close() }
        let prefix = ScaleServices.uniqueName("geo")
        let geo = RedisGeoIndex(client: client, prefix: prefix)
        let seenKey = RedisGeoIndex.keys(prefix: prefix).seen
        // The date a node passes is not what is stored: these were all seen now, by Redis.
        let aDayAgo = Date(timeIntervalSinceNow: -86_400)
        for (index, id) in ["silent-a", "silent-b", "heard", "fresh"].enumerated() {
            try await geo.update(
                driverID: id, coordinate: RedisTests.north(Double(100 * (index + 1))), seenAt: aDayAgo)
        }
        // Make some silent by Redis's clock: 100 s, 61 s and 30 s ago.
        let now = try await Self.redisNow(client)
        for (id, ago) in [("silent-a", 100.0), ("silent-b", 61.0), ("heard", 30.0)] {
            try await Self.redis(client, ["ZADD", seenKey, String(format: "%.6f", now - ago), id])
        }
        // Nodes two minutes ahead and behind evict exactly the drivers silent for over 60 s by Redis.
        let nodeAhead = Date(timeIntervalSinceNow: 120)
        #expect(try await geo.evict(silentFor: 60, now: nodeAhead) == ["silent-a", "silent-b"])
        #expect(try await geo.evict(silentFor: 60, now: Date(timeIntervalSinceNow: -120)) == [])
        let hits = try await geo.nearest(to: RedisTests.center, radius: 1000, limit: 10, now: nodeAhead)
        #expect(hits.map(\.driverID) == ["heard", "fresh"])
        let heard = try #require(hits.first?.silence)
        let fresh = try #require(hits.last?.silence)
        #expect((30..<40).contains(heard))
        #expect((0..<10).contains(fresh))
    }
}
