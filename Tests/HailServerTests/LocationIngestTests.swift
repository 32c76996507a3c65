import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

@Suite("Location ingest")
struct LocationIngestTests {
    static let start = Coordinate(lat: 43.7300, lng: 7.4200)

    @Test func outOfOrderAndDuplicateBatchesNeverMoveThePublishedSeqBackwards() async throws {
        let h = await ServerHarness()
        try await RideFlowTests.tripOnTrip(h)
        var riders = await TopicReader(h.services.bus, .trip("trip-1"))
        var published: [Int64] = []
        for seq: Int64 in [20, 22, 21, 22, 23, 19] {
            h.advance(seconds: 3)
            let response = await h.sendLocation(
                "driver-1", seq: seq, at: Coordinate(lat: 43.74 + Double(seq) * 0.00001, lng: 7.428))
            #expect(response.status == 200)
            // Every batch is acknowledged with its own seq, even the ones ignored.
            #expect(try HailJSON.decode(LocationAck.self, from: response.body).seq == seq)
            if let position = await h.services.fleet.position(driverID: "driver-1") { published.append(position.seq) }
        }
        #expect(published == [20, 22, 22, 22, 23, 23])
        // The riders' stream carried only the applied ones, in order.
        var seqs: [Int64] = []
        await h.services.bus.publish(BusMessage(kind: .essential, text: #"{"type":"sentinel"}"#), to: .trip("trip-1"))
        while let next = await riders.nextType(), next.type != "sentinel" {
            let moved = try HailJSON.decode(RiderServerFrame.self, from: Data(next.message.text.utf8))
            if case .driverMoved(let frame) = moved { seqs.append(frame.seq) }
        }
        #expect(seqs == [20, 22, 23])
    }

    @Test func aBacklogBatchChangesTheFareDistanceButPublishesNoOldPosition() async throws {
        let h = await ServerHarness()
        try await RideFlowTests.tripOnTrip(h)
        let tunnelEntry = h.now
        h.advance(seconds: 1)
        await h.sendLocation("driver-1", seq: 30, at: Coordinate(lat: 43.7400, lng: 7.4276))
        h.advance(seconds: 120)
        await h.sendLocation("driver-1", seq: 31, at: Coordinate(lat: 43.7580, lng: 7.4276))
        let before = try await h.services.history.history(tripID: "trip-1").map(\.coordinate).pathLength
        var riders = await TopicReader(h.services.bus, .trip("trip-1"))

        // The phone flushes what it buffered in the tunnel: points in between, taken earlier.
        let backlog = (1...3).map { step in
            LocationPoint(
                lat: 43.7400 + Double(step) * 0.0045, lng: 7.4330, accuracy: 8, heading: 0, speed: 12,
                t: tunnelEntry.addingTimeInterval(Double(step) * 30))
        }
        let body = try HailJSON.encode(LocationBatch(seq: 32, points: backlog, backlog: true))
        let response = await h.call("POST", "/v1/drivers/me/locations", token: h.token(.driver, "driver-1"), body: body)
        #expect(response.status == 200)

        let after = try await h.services.history.history(tripID: "trip-1").map(\.coordinate).pathLength
        // With the 32 m from where the car stood when the trip started (issue 14: 2002 and 2325 before).
        #expect(Int(before.rounded()) == 2034)
        #expect(Int(after.rounded()) == 2357)
        // The rider's car stays on the newest live fix.
        #expect(await h.services.fleet.position(driverID: "driver-1")?.seq == 31)
        await h.services.bus.publish(BusMessage(kind: .essential, text: #"{"type":"sentinel"}"#), to: .trip("trip-1"))
        #expect(await riders.nextType()?.type == "sentinel")
    }

    @Test func serverSideFilterDropsWildFixesAndCountsThem() async throws {
        let h = await ServerHarness()
        await h.onlineDriver("driver-1", at: Self.start)
        h.advance(seconds: 2)
        let points = [
            LocationPoint(lat: 43.7301, lng: 7.4200, accuracy: 80, heading: 0, speed: 5, t: h.now),  // poor accuracy
            LocationPoint(lat: 43.9000, lng: 7.4200, accuracy: 5, heading: 0, speed: 5, t: h.now),  // 19 km in 2 s
            LocationPoint(lat: 43.7302, lng: 7.4200, accuracy: 5, heading: 0, speed: 5, t: h.now),  // fine
        ]
        let body = try HailJSON.encode(LocationBatch(seq: 2, points: points))
        #expect(
            await h.call("POST", "/v1/drivers/me/locations", token: h.token(.driver, "driver-1"), body: body).status
                == 200)
        let registry = h.services.metrics.registry
        #expect(
            registry.value(
                "hail_location_updates_total",
                labels: ["result": "poorAccuracy", "app": "unknown", "version": "unknown", "device": "unknown"]) == 1)
        #expect(
            registry.value(
                "hail_location_updates_total",
                labels: ["result": "impossibleSpeed", "app": "unknown", "version": "unknown", "device": "unknown"]) == 1
        )
        #expect(
            await h.services.fleet.position(driverID: "driver-1")?.coordinate == Coordinate(lat: 43.7302, lng: 7.4200))
    }

    @Test func theBinaryBatchIsAcceptedOverHTTP() async throws {
        let h = await ServerHarness()
        await h.onlineDriver("driver-1", at: Self.start)
        h.advance(seconds: 3)
        let batch = LocationBatch(
            seq: 2, points: [LocationPoint(lat: 43.7305, lng: 7.4201, accuracy: 4, heading: 10, speed: 9, t: h.now)])
        let bytes = try LocationBatchCodec.encode(batch)
        let response = await h.call(
            "POST", "/v1/drivers/me/locations", token: h.token(.driver, "driver-1"), body: bytes,
            headers: ["Content-Type": HailMediaType.locationBatch])
        #expect(response.status == 200)
        #expect(await h.services.fleet.position(driverID: "driver-1")?.seq == 2)
    }
}
