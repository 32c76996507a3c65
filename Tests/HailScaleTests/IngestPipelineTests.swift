import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

@testable import HailScale

/// The scaled node's per-batch write (`RedisIngestPipeline`): planned on the node from its copy of the
/// driver's state, one script call per batch, many drivers' batches in one round trip, and the step-by-step
/// path whenever the copy is stale.
@Suite(
    "One Redis round trip per location batch",
    .enabled(
        if: ScaleServices.hasPostgres && ScaleServices.hasRedis, "start PostgreSQL and Redis with scripts/services.sh"))
struct IngestPipelineTests {
    static let near = CrossNodeTests.near

    /// Where driver `index` of a test goes next: a few metres apart, so each lands on its own spot.
    static func spot(_ index: Int) -> Coordinate {
        Coordinate(lat: 43.7400 + Double(index) * 0.0001, lng: 7.4280)
    }

    /// Streams driver-1's batch `seq` to `node` at `spot(seq)`, its fix `seq` s after `t`, and waits for its ack.
    static func stream(_ seq: Int64, to node: ScaleNode, after t: Date) async {
        let batch = StreamedBatch(
            fleet: node.services.fleet, driver: "driver-1", seq: seq, at: spot(Int(seq)), t: t + Double(seq))
        #expect(batch.isWriting)
        #expect(await batch.committed())
    }

    @Test func fortyDriversBatchesQueuedTogetherGoInOneRoundTrip() async throws {
        try await CrossNodeTests.withTwoNodes { nodeA, nodeB in
            let drivers = (0..<40).map { "driver-\($0)" }
            for id in drivers { try await nodeA.online(driver: id, at: Self.near) }
            // Past the geo refresh interval since going online wrote each driver's entry: this batch writes it.
            nodeA.clock.advance(by: .seconds(1))
            let before = nodeA.pipeline.statistics
            let registry = nodeA.services.metrics.registry
            let metricsBefore = (
                roundTrips: registry.value("hail_redis_ingest_round_trips_total"),
                applied: registry.value("hail_redis_ingest_writes_total", labels: ["result": "applied"])
            )
            let t = nodeA.services.time.now() + 60

            nodeA.pipeline.holdRounds(true)
            let sent = drivers.enumerated().map { index, id in
                StreamedBatch(fleet: nodeA.services.fleet, driver: id, seq: 2, at: Self.spot(index), t: t)
            }
            #expect(sent.filter(\.isWriting).count == 40)
            nodeA.pipeline.holdRounds(false)
            for batch in sent { #expect(await batch.committed()) }
            // A read queued now shares the round that carries the forty positions to the geo index.
            _ = try await nodeA.pipeline.load(driverID: drivers[0])

            let after = nodeA.pipeline.statistics
            // The forty writes in one round; the geo update and the read after it, together or one by one.
            #expect(after.largestRound == 40)
            #expect((2...3).contains(after.roundTrips - before.roundTrips))
            // One script call for the forty writes, then the geo update and the read.
            #expect(after.commands - before.commands == 3)
            #expect(after.writes - before.writes == 40)
            #expect(after.staleWrites == before.staleWrites)
            // /metrics says the same: one round trip carried the forty writes (the geo round carried none).
            #expect(registry.value("hail_redis_ingest_round_trips_total") - metricsBefore.roundTrips == 1)
            #expect(
                registry.value("hail_redis_ingest_writes_total", labels: ["result": "applied"]) - metricsBefore.applied
                    == 40)
            // Every node sees what the one round trip wrote: seq, position and the geo index.
            for (index, id) in drivers.enumerated() {
                let position = await nodeB.services.fleet.position(driverID: id)
                #expect(position?.seq == 2)
                #expect(position?.coordinate == Self.spot(index))
            }
            let hits = try await nodeB.services.fleet.availableDrivers(near: Self.spot(20), excluding: [], limit: 1)
            #expect(hits.map(\.driverID) == ["driver-20"])
            let nearest = try #require(hits.first)
            #expect(nearest.distance < 1)
        }
    }

    @Test func aDriversGeoEntryIsRewrittenAtMostTwiceASecondWhileTheirSharedStateMovesWithEveryBatch()
        async throws
    {
        try await CrossNodeTests.withTwoNodes { nodeA, nodeB in
            try await nodeA.online(driver: "driver-1", at: Self.near)
            let t = nodeA.services.time.now() + 60
            func send(_ seq: Int64) async {
                await Self.stream(seq, to: nodeA, after: t)
                // The geo update rides at the head of the round after its batch's: a read makes that round.
                _ = try? await nodeA.pipeline.load(driverID: "driver-1")
            }
            /// Which spot node B's nearby search finds the driver at (Redis keeps positions to about 0.6 m; the
            /// spots are 11 m apart).
            func indexed() async throws -> Int? {
                let hit = try await nodeB.services.fleet.availableDrivers(near: Self.near, excluding: [], limit: 1)
                    .first
                guard let hit else { return nil }
                return (0..<10).first { spot in hit.coordinate.distance(to: Self.spot(spot)) < 1 }
            }
            nodeA.clock.advance(by: .seconds(1))
            await send(2)
            #expect(try await indexed() == 2)
            // 0.4 s later: the hash moves (node B sees seq 3), the index still holds seq 2's position.
            nodeA.clock.advance(by: .milliseconds(400))
            await send(3)
            #expect(await nodeB.services.fleet.position(driverID: "driver-1")?.coordinate == Self.spot(3))
            #expect(try await indexed() == 2)
            // 0.5 s after the last rewrite: the index takes seq 4's position.
            nodeA.clock.advance(by: .milliseconds(100))
            await send(4)
            #expect(try await indexed() == 4)
        }
    }

    @Test func aDriversStateHasItsLifetimeRenewedOnceAMinuteNotWithEveryBatch() async throws {
        try await CrossNodeTests.withTwoNodes { nodeA, _ in
            try await nodeA.online(driver: "driver-1", at: Self.near)
            let key = RedisDriverIngestStore.key(prefix: nodeA.ingestPrefix, driverID: "driver-1")
            let t = nodeA.services.time.now() + 60
            func send(_ seq: Int64) async { await Self.stream(seq, to: nodeA, after: t) }
            func millisecondsLeft() async throws -> Int? {
                guard case .integer(let left) = try await nodeA.pipeline.commands([["PTTL", key]])[0] else {
                    return nil
                }
                return left
            }
            /// Shortens the key's lifetime to 100 s, as if it had been renewed a day less 100 s ago.
            func shorten() async throws {
                _ = try await nodeA.pipeline.commands([["PEXPIRE", key, "100000"]])[0].checked()
            }
            // The node's first write of the driver renews it: a day.
            await send(2)
            try await shorten()
            #expect(try await millisecondsLeft().map { $0 <= 100_000 } == true)
            // 59 s later the seq and position move, the lifetime is left as it is.
            nodeA.clock.advance(by: .seconds(59))
            await send(3)
            #expect(try await nodeA.pipeline.load(driverID: "driver-1")?.state.lastSeq == 3)
            #expect(try await millisecondsLeft().map { $0 <= 100_000 } == true)
            // A minute after the last renewal it is renewed again, to a day.
            nodeA.clock.advance(by: .seconds(1))
            await send(4)
            #expect(try await millisecondsLeft().map { $0 > 86_000_000 } == true)
        }
    }

    @Test func aTripAcceptedOnAnotherNodeMakesTheCopyStaleAndTheRiderStillSeesTheCar() async throws {
        try await CrossNodeTests.withTwoNodes { nodeA, nodeB in
            try await nodeA.online(driver: "driver-1", at: Self.near)
            let created = await nodeB.call(
                "POST", "/v1/trips", token: nodeB.token(.rider, "rider-1"), body: TwoNodeTests.request,
                key: UUID().uuidString)
            let trip = try HailJSON.decode(Trip.self, from: created.body)
            let watching = await nodeB.services.bus.subscribe(to: .trip(trip.id))
            // Accepted through node B: node A's copy of the driver says they serve no trip.
            let accepted = await nodeB.call(
                "POST", "/v1/trips/\(trip.id)/accept", token: nodeB.token(.driver, "driver-1"), key: UUID().uuidString)
            #expect(accepted.status == 200)

            let t = nodeA.services.time.now() + 5
            let stale = StreamedBatch(fleet: nodeA.services.fleet, driver: "driver-1", seq: 2, at: Self.spot(1), t: t)
            #expect(stale.isWriting)
            #expect(await stale.committed())
            #expect(nodeA.pipeline.statistics.staleWrites == 1)
            // Planned again on the stored state, the next batch is written in one step, publish included.
            let fresh = StreamedBatch(
                fleet: nodeA.services.fleet, driver: "driver-1", seq: 3, at: Self.spot(2), t: t + 1)
            #expect(await fresh.committed())
            #expect(nodeA.pipeline.statistics.staleWrites == 1)

            let seen = await RedisTests.first(3, of: watching)
            #expect(seen.map { $0.text.contains("driverAssigned") } == [true, false, false])
            let moved = try seen.dropFirst().map { message in
                try HailJSON.decode(RiderServerFrame.self, from: Data(message.text.utf8))
            }
            let seqs = moved.compactMap { frame -> Int64? in
                if case .driverMoved(let moved) = frame { return moved.location.seq }
                return nil
            }
            #expect(seqs == [2, 3])
        }
    }

    /// A start committed while the driver's record in Redis still says driverArrived, as when the committing node's
    /// link to Redis is slow: the batch a node plans on that copy and writes in one round trip still reaches the
    /// trip's history, because PostgreSQL judges it against the committed trip; a batch before the commit does not.
    @Test func aBatchPlannedOnACopyThatMissedTheStartIsStillInTheTripsHistory() async throws {
        try await CrossNodeTests.withTwoNodes { nodeA, nodeB in
            try await nodeA.online(driver: "driver-1", at: Self.near)
            let created = await nodeB.call(
                "POST", "/v1/trips", token: nodeB.token(.rider, "rider-1"), body: TwoNodeTests.request,
                key: UUID().uuidString)
            let trip = try HailJSON.decode(Trip.self, from: created.body)
            for step in ["accept", "events"] {
                let body =
                    step == "events"
                    ? try HailJSON.encode(TripEventRequest(event: .arrived, idempotencyKey: UUID().uuidString)) : Data()
                let answer = await nodeB.call(
                    "POST", "/v1/trips/\(trip.id)/\(step)", token: nodeB.token(.driver, "driver-1"), body: body,
                    key: UUID().uuidString)
                #expect(answer.status == 200)
            }
            let t = nodeA.services.time.now() + 5
            // Node A's copy catches up with the arrival (a stale write), then writes in one step.
            await Self.stream(2, to: nodeA, after: t)
            await Self.stream(3, to: nodeA, after: t)
            let arrived = try #require(try await nodeB.stores.trips.record(id: trip.id))
            #expect(arrived.trip.state == .driverArrived)

            // The start, committed with no after-commit work: Redis keeps saying driverArrived.
            let started = try TripRules.decide(.started, by: .driver("driver-1"), on: arrived).get()
            let commit = TripCommit(
                record: started, expectedVersion: arrived.trip.version,
                event: TripEventRecord(
                    tripID: trip.id, version: started.trip.version, intent: "started", actor: "driver:driver-1",
                    state: .onTrip, at: nodeB.services.time.now()))
            #expect(try await nodeB.stores.trips.commit(commit) == .committed)
            let stalled = try await RedisDriverIngestStore(client: nodeA.redis, prefix: nodeA.ingestPrefix).state(
                driverID: "driver-1")
            #expect(stalled?.trip?.trip.state == .driverArrived)

            let before = nodeA.pipeline.statistics.staleWrites
            await Self.stream(4, to: nodeA, after: t)
            #expect(nodeA.pipeline.statistics.staleWrites == before)
            let history = try await nodeB.stores.history.history(tripID: trip.id)
            #expect(history.map(\.coordinate) == [Self.spot(4)])
        }
    }

    // Scripts flushed from Redis: `RedisScriptReloadTests` (HailServerTests), on a Redis of its own.

    @Test func aBatchTheCopyCallsOldIsAcknowledgedWithoutARoundTrip() async throws {
        try await CrossNodeTests.withTwoNodes { nodeA, _ in
            try await nodeA.online(driver: "driver-1", at: Self.near)
            let before = nodeA.pipeline.statistics
            let replay = StreamedBatch(
                fleet: nodeA.services.fleet, driver: "driver-1", seq: 1, at: Self.spot(4), t: nodeA.services.time.now())
            guard case .done(let result)? = replay.outcome else {
                Issue.record("a replayed batch was \(String(describing: replay.outcome))")
                return
            }
            #expect(result.applied == false)
            #expect(result.ackSeq == 1)
            #expect(nodeA.pipeline.statistics == before)
        }
    }

    @Test func aWriteToAnUnreachableRedisFailsAsAConnectionFailure() async throws {
        // Port 1 on loopback: nothing listens, so the connect is refused at once.
        let pipeline = RedisIngestPipeline(endpoint: try RedisEndpoint(url: "redis://127.0.0.1:1"))
        defer { pipeline.close() }
        let write = PlannedIngestWrite(
            driverID: "driver-1", seq: 2, expectedVersion: "v1", newVersion: "v2", filter: LocationFilter(),
            position: nil, publish: nil, geo: (Self.near, Date(timeIntervalSince1970: 1_796_220_000)))
        let outcome = await withCheckedContinuation { continuation in
            pipeline.write(write) { continuation.resume(returning: $0) }
        }
        guard case .failure(let error) = outcome else {
            Issue.record("the write answered \(outcome)")
            return
        }
        #expect((error as? RedisError)?.code == .connection)
        #expect(pipeline.statistics.writes == 0)
    }
}
