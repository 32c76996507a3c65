import Foundation
import HailCore
import HailScale
import HailServer
import Testing

@Suite("Redis geo index and bus", .enabled(if: ScaleServices.hasRedis, "start Redis with scripts/services.sh"))
struct RedisTests {
    static let center = Coordinate(lat: 43.7396, lng: 7.4276)
    static let epoch = Date(timeIntervalSince1970: 1_796_220_000)

    static func endpoint() throws -> RedisEndpoint { try RedisEndpoint(url: try #require(ScaleServices.redisURL)) }

    /// A point `metres` north of the center.
    static func north(_ metres: Double) -> Coordinate {
        Coordinate(lat: center.lat + metres / 111_195, lng: center.lng)
    }

    @Test func nearestComesNearestFirstWithinTheRadius() async throws {
        let client = RedisClient(endpoint: try Self.endpoint())
        defer { client.close() }
        let geo = RedisGeoIndex(client: client, prefix: ScaleServices.uniqueName("test"))
        try await geo.update(driverID: "far", coordinate: Self.north(900), seenAt: Self.epoch)
        try await geo.update(driverID: "near", coordinate: Self.north(100), seenAt: Self.epoch)
        try await geo.update(driverID: "middle", coordinate: Self.north(400), seenAt: Self.epoch)
        try await geo.update(driverID: "outside", coordinate: Self.north(3000), seenAt: Self.epoch)
        // A driver who moves is indexed once, at the new place.
        try await geo.update(driverID: "moved", coordinate: Self.north(2000), seenAt: Self.epoch)
        try await geo.update(driverID: "moved", coordinate: Self.north(250), seenAt: Self.epoch)

        let hits = try await geo.nearest(to: Self.center, radius: 1000, limit: 10, now: Self.epoch)
        #expect(hits.map(\.driverID) == ["near", "moved", "middle", "far"])
        #expect(abs(hits[0].distance - 100) < 1)
        #expect(abs(hits[0].coordinate.lat - Self.north(100).lat) < 0.00001)
        #expect(
            try await geo.nearest(to: Self.center, radius: 1000, limit: 2, now: Self.epoch).map(\.driverID) == [
                "near", "moved",
            ])

        try await geo.remove(driverID: "near")
        #expect(
            try await geo.nearest(to: Self.center, radius: 1000, limit: 1, now: Self.epoch).map(\.driverID) == ["moved"]
        )
    }

    @Test func aMessagePublishedOnOneNodeReachesASubscriberOnAnother() async throws {
        let prefix = ScaleServices.uniqueName("test") + ":"
        let nodeA = try RedisTripBus(endpoint: try Self.endpoint(), prefix: prefix)
        let nodeB = try RedisTripBus(endpoint: try Self.endpoint(), prefix: prefix)
        defer {
            nodeA.close()
            nodeB.close()
        }
        let onB = await nodeB.subscribe(to: .trip("t-1"))
        let otherTopic = await nodeB.subscribe(to: .driver("d-1"))
        let sent = [
            BusMessage(kind: .disposable, text: #"{"type":"position"}"#, publishedAt: Self.epoch),
            BusMessage(kind: .essential, text: #"{"type":"trip","état":"fini"}"#, endsStream: true),
        ]
        for message in sent { await nodeA.publish(message, to: .trip("t-1")) }
        #expect(await Self.first(2, of: onB) == sent)
        // Nothing crossed into another topic, and a cancelled subscription's stream ends.
        await nodeA.publish(BusMessage(kind: .essential, text: "{}"), to: .driver("d-1"))
        #expect(await Self.first(1, of: otherTopic).map(\.text) == ["{}"])
        await onB.cancel()
        var afterCancel: [BusMessage] = []
        for await message in onB.messages { afterCancel.append(message) }
        #expect(afterCancel.isEmpty)
    }

    @Test func aLocalSubscriberLeavingDoesNotSilenceAnother() async throws {
        let prefix = ScaleServices.uniqueName("test") + ":"
        let bus = try RedisTripBus(endpoint: try Self.endpoint(), prefix: prefix)
        defer { bus.close() }
        let leaving = await bus.subscribe(to: .trip("t"))
        let staying = await bus.subscribe(to: .trip("t"))
        await leaving.cancel()
        await bus.publish(BusMessage(kind: .essential, text: "1"), to: .trip("t"))
        #expect(await Self.first(1, of: staying).map(\.text) == ["1"])
        var afterLeaving: [BusMessage] = []
        for await message in leaving.messages { afterLeaving.append(message) }
        #expect(afterLeaving.isEmpty)
        // Leaving the last one and coming back subscribes the channel again, without earlier messages.
        await bus.publish(BusMessage(kind: .essential, text: "2"), to: .trip("t"))
        await staying.cancel()
        let again = await bus.subscribe(to: .trip("t"))
        await bus.publish(BusMessage(kind: .essential, text: "3"), to: .trip("t"))
        #expect(await Self.first(1, of: again).map(\.text) == ["3"])
    }

    /// The first `count` messages, or fewer if they do not arrive within five seconds (a timer cancels the
    /// subscription, which ends the stream).
    static func first(_ count: Int, of subscription: BusSubscription) async -> [BusMessage] {
        DispatchQueue.global().asyncAfter(deadline: .now() + 5) { Task { await subscription.cancel() } }
        var received: [BusMessage] = []
        for await message in subscription.messages {
            received.append(message)
            if received.count == count { break }
        }
        return received
    }
}
