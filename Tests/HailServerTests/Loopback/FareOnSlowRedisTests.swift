import Foundation
import HailCore
import HailProtocol
import HailServer
import HailTesting
import Synchronization
import Testing

/// Issue 37's I8 ("every acknowledged fix of a trip reaches its fare") on the scaled shape, with the fault the suite's
/// `node1-redis-slow-5m` met: two nodes on one PostgreSQL and a private `redis-server`, node 0 reaching Redis through a
/// proxy of the test's own. Node 0 commits the start, then its link to Redis stalls at the publish that follows, so
/// its after-commit writes (the driver's trip record in Redis among them) wait; meanwhile the driver's batches reach
/// node 1, whose copy of the driver still says driverArrived, and are acknowledged there, and the trip ends there
/// before node 0 is done. The fare must still run through every one of them, from where the car stood at the start. The stall is placed by what node 0 sends, not by
/// time, and the receipt's distance is compared, to the metre, with the path through the fixes the test sent.
@Suite("Acknowledged fixes reach the fare when a node's Redis stalls", .serialized)
struct FareOnSlowRedisTests {
    static let pickup = Coordinate(lat: 43.7396, lng: 7.4276)

    /// One fix taken at `t`, as the apps send them.
    static func fix(_ coordinate: Coordinate, _ t: Date) -> LocationPoint {
        LocationPoint(lat: coordinate.lat, lng: coordinate.lng, accuracy: 5, heading: 200, speed: 20, t: t)
    }

    /// A batch sent to node `index` over REST; its acknowledged seq, or nil.
    static func send(
        _ cluster: TripCluster, via index: Int, driver: String, seq: Int64, _ points: [LocationPoint]
    ) async throws -> Int64? {
        let body = try HailJSON.encode(LocationBatch(seq: seq, points: points))
        let answer = await cluster.call(
            index, "POST", "/v1/drivers/me/locations", token: cluster.token(.driver, driver), body: body)
        guard answer.status == 200 else { return nil }
        return try HailJSON.decode(LocationAck.self, from: answer.body).seq
    }

    @Test func fixesAcknowledgedByAnotherNodeWhileTheStartingNodesRedisStallsAreCharged() async throws {
        let redis = try PrivateRedis()
        try await redis.start()
        defer { redis.kill() }
        let proxy = try BlackHoleProxy(targetPort: redis.port)
        defer { proxy.stop() }
        let cluster = try await TripCluster.scaled(redisURLs: ["redis://127.0.0.1:\(proxy.port)", redis.url])
        do {
            try await run(cluster, proxy: proxy)
        } catch {
            proxy.blackHole(false)
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    private func run(_ cluster: TripCluster, proxy: BlackHoleProxy) async throws {
        let rider = "rider-" + UUID().uuidString.prefix(8).lowercased()
        let driver = "driver-" + UUID().uuidString.prefix(8).lowercased()
        let trip = try await cluster.requestTrip(rider: rider)
        try await cluster.offer(trip.id, to: driver)
        #expect(await cluster.accept(trip.id, driver: driver, via: 1).status == 200)
        // The fixes' own times, on the phone's clock: two minutes ago onwards, a second apart on the way.
        let origin = Date().addingTimeInterval(-120)
        // On the way to the pickup: stored for no fare.
        let onTheWay = Self.fix(Coordinate(lat: Self.pickup.lat + 0.0005, lng: Self.pickup.lng), origin)
        #expect(try await Self.send(cluster, via: 1, driver: driver, seq: 1, [onTheWay]) == 1)
        #expect(await cluster.event(.arrived, trip.id, driver: driver, via: 1).status == 200)
        // Where the car stands as the trip starts.
        let standing = Self.fix(Self.pickup, origin.addingTimeInterval(10))
        #expect(try await Self.send(cluster, via: 1, driver: driver, seq: 2, [standing]) == 2)

        // Node 0 starts the trip; its link to Redis stalls at the start's publish, after the commit, with the driver's
        // trip record in Redis still saying driverArrived.
        let stalled = Mailbox<Bool>()
        proxy.blackHole(whenClientSends: #""onTrip""#) { Task { await stalled.put(true) } }
        let started = Task { await cluster.event(.started, trip.id, driver: driver, via: 0) }
        #expect(try await stalled.next(within: 60, "node 0's publish of the start"))
        #expect(try await cluster.trips.record(id: trip.id)?.trip.state == .onTrip)

        // The car drives off; node 1 acknowledges every batch while node 0 is stalled.
        var driven: [LocationPoint] = []
        for seq in Int64(3)...5 {
            var batch: [LocationPoint] = []
            for _ in 0..<2 {
                let step = Double(driven.count + 1)
                let point = Self.fix(
                    Coordinate(lat: Self.pickup.lat - 0.00018 * step, lng: Self.pickup.lng - 0.00006 * step),
                    origin.addingTimeInterval(20 + step))
                batch.append(point)
                driven.append(point)
            }
            #expect(try await Self.send(cluster, via: 1, driver: driver, seq: seq, batch) == seq)
        }
        // The trip ends through node 1 while node 0 is still stalled in the start's after-commit work.
        let ended = await cluster.event(.ended, trip.id, driver: driver, via: 1)
        proxy.blackHole(false)
        #expect(await started.value.status == 200)

        // Every fix acknowledged since the start, from where the car stood, and nothing of the way to the pickup.
        let charged = [standing] + driven
        try #require(ended.status == 200, "ended answered \(ended.status): \(ended.text)")
        let receipt = try #require(try HailJSON.decode(Trip.self, from: ended.body).receipt)
        let expected = Int(charged.map(\.coordinate).pathLength.rounded())
        #expect(expected == 124)
        #expect(receipt.distanceMeters == expected)
        let history = try await cluster.nodes[1].services.history.history(tripID: trip.id)
        #expect(history.map(\.coordinate) == charged.map(\.coordinate))
    }
}
