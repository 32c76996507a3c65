import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

@Suite("When a fix was taken, and a keep-alive without one")
struct FixTimeIngestTests {
    static let parked = Coordinate(lat: 43.7400, lng: 7.4280)

    static func batch(seq: Int64, at coordinate: Coordinate, t: Date, noFix: Bool = false) throws -> Data {
        let point = LocationPoint(
            lat: coordinate.lat, lng: coordinate.lng, accuracy: 5, heading: 90, speed: noFix ? 0 : 8, t: t)
        return try HailJSON.encode(LocationBatch(seq: seq, points: [point], noFix: noFix))
    }

    /// driver-1 reports "ended" on trip-1 with a path, or none; the trip it answers.
    static func end(_ h: ServerHarness, path: [LocationPoint]? = nil) async throws -> Trip {
        let body = TripEventRequest(event: .ended, idempotencyKey: UUID().uuidString.lowercased(), path: path)
        let ended = await h.call(
            "POST", "/v1/trips/trip-1/events", token: h.token(.driver, "driver-1"), body: try HailJSON.encode(body))
        return try HailJSON.decode(Trip.self, from: ended.body)
    }

    @discardableResult
    static func send(_ h: ServerHarness, _ driverID: String, _ body: Data) async -> APIResponse {
        await h.call("POST", "/v1/drivers/me/locations", token: h.token(.driver, driverID), body: body)
    }

    /// The rider frames published on trip-1 until a sentinel, decoded.
    static func published(_ h: ServerHarness, _ reader: inout TopicReader) async throws -> [DriverMoved] {
        await h.services.bus.publish(BusMessage(kind: .essential, text: #"{"type":"sentinel"}"#), to: .trip("trip-1"))
        var frames: [DriverMoved] = []
        while let next = await reader.nextType(), next.type != "sentinel" {
            if case .driverMoved(let frame) = try HailJSON.decode(
                RiderServerFrame.self, from: Data(next.message.text.utf8))
            {
                frames.append(frame)
            }
        }
        return frames
    }

    @Test func aPublishedPositionSaysWhenThePhoneTookItOnTheServersClock() async throws {
        let h = await ServerHarness()
        try await RideFlowTests.tripOnTrip(h)
        var riders = await TopicReader(h.services.bus, .trip("trip-1"))
        // A fix sent at once (the phone's clock is the server's here; FixTimeEstimatorTests has one that is not).
        h.advance(seconds: 1)
        let start = h.now
        #expect(await Self.send(h, "driver-1", try Self.batch(seq: 10, at: Self.parked, t: start)).status == 200)
        // 3 s later a fix the phone took 1.5 s before (the batcher held it, the uplink was slow).
        h.advance(seconds: 3)
        let next = Coordinate(lat: 43.7402, lng: 7.4280)
        #expect(await Self.send(h, "driver-1", try Self.batch(seq: 11, at: next, t: start + 1.5)).status == 200)
        let frames = try await Self.published(h, &riders)
        #expect(frames.map(\.seq) == [10, 11])
        #expect(frames.map(\.receivedAt) == [start, start + 3])
        #expect(frames.map(\.fixedAt) == [start, start + 1.5])
        #expect(frames.map(\.etaTarget) == [.dropoff, .dropoff])
        // The trip's snapshot carries it too.
        let trip = try HailJSON.decode(
            Trip.self, from: await h.call("GET", "/v1/trips/trip-1", token: h.token(.rider, "rider-1")).body)
        #expect(trip.driverLocation?.fixedAt == start + 1.5)
        #expect(trip.driverLocation?.ageOrigin == start + 1.5)
    }

    @Test func aReportedRoundTripDatesTheFixNoLaterThanItWasTaken() async throws {
        let h = await ServerHarness()
        try await RideFlowTests.tripOnTrip(h)
        var riders = await TopicReader(h.services.bus, .trip("trip-1"))
        func batch(_ seq: Int64, taken: Date, sent: Date, roundTrip: Double?) throws -> Data {
            let lat = Self.parked.lat + Double(seq - 10) * 0.0002
            let point = LocationPoint(lat: lat, lng: Self.parked.lng, accuracy: 5, heading: 90, speed: 8, t: taken)
            return try HailJSON.encode(LocationBatch(seq: seq, points: [point], sentAt: sent, roundTrip: roundTrip))
        }
        // The trip's earlier fixes arrived the instant they were taken (the smallest lag is 0). Now each batch goes at
        // once and arrives 0.5 s later, the second reporting a quickest round trip of 0.7 s.
        h.advance(seconds: 1)
        let first = h.now
        h.advance(seconds: 0.5)
        #expect(await Self.send(h, "driver-1", try batch(10, taken: first, sent: first, roundTrip: nil)).status == 200)
        h.advance(seconds: 2.5)
        let second = h.now
        h.advance(seconds: 0.5)
        #expect(
            await Self.send(h, "driver-1", try batch(11, taken: second, sent: second, roundTrip: 0.7)).status == 200)
        let frames = try await Self.published(h, &riders)
        // Without a round trip the fix is dated when taken; with it, 0.7 s before: the server takes the quickest round
        // trip as the most the quickest arrival can have been, so a fix is never dated late, at worst a little early.
        let fixedAt = frames.map { $0.fixedAt.map { Int(($0.timeIntervalSince(first) * 1000).rounded()) } }
        #expect(fixedAt == [0, 2_300])
        #expect(Int((second.timeIntervalSince(first) * 1000).rounded()) == 3_000)
        // A round trip that is none is refused and changes nothing.
        let bad = await Self.send(h, "driver-1", try batch(12, taken: h.now, sent: h.now, roundTrip: -1))
        #expect(bad.status == 400)
        #expect(
            String(decoding: bad.body, as: UTF8.self)
                == #"{"error":{"code":"invalid_field","field":"roundTrip","message":"roundTrip must be between 0 and 600"}}"#
        )
        #expect(await h.services.fleet.position(driverID: "driver-1")?.seq == 11)
    }

    @Test func aKeepAliveWithoutAFixShowsNoRiderAPositionAndKeepsTheDriverOffered() async throws {
        let h = await ServerHarness()
        let start = h.now
        await h.onlineDriver("driver-1", at: Self.parked)
        await h.onlineDriver("driver-2", at: Coordinate(lat: 43.7401, lng: 7.4281))
        // driver-1 goes into a garage: no fix; 48 s on its phone says so and repeats the last fix.
        h.advance(seconds: 48)
        let keepAlive = await Self.send(h, "driver-1", try Self.batch(seq: 2, at: Self.parked, t: h.now, noFix: true))
        #expect(keepAlive.status == 200)
        #expect(try HailJSON.decode(LocationAck.self, from: keepAlive.body).seq == 2)
        // The position stays the last fix, as old as it is.
        let position = try #require(await h.services.fleet.position(driverID: "driver-1"))
        #expect(position.seq == 1)
        #expect(position.receivedAt == start)
        // 70 s on, driver-1 was heard 22 s ago and is still offered; driver-2, silent for 70 s, is not.
        h.advance(seconds: 22)
        let near = Coordinate(lat: 43.7396, lng: 7.4276)
        #expect(try await h.services.fleet.availableDrivers(near: near, excluding: []).map(\.driverID) == ["driver-1"])
        h.advance(seconds: 39)
        #expect(try await h.services.fleet.availableDrivers(near: near, excluding: []).isEmpty)
    }

    @Test func aKeepAliveWithoutAFixDuringATripPublishesNothingAndLeavesTheTripsPosition() async throws {
        let h = await ServerHarness()
        try await RideFlowTests.tripOnTrip(h)
        let started = h.now
        var riders = await TopicReader(h.services.bus, .trip("trip-1"))
        h.advance(seconds: 2)
        let fixAt = h.now
        await Self.send(h, "driver-1", try Self.batch(seq: 5, at: Self.parked, t: fixAt))
        h.advance(seconds: 12)
        let keepAlive = await Self.send(h, "driver-1", try Self.batch(seq: 6, at: Self.parked, t: h.now, noFix: true))
        #expect(keepAlive.status == 200)
        #expect(try await Self.published(h, &riders).map(\.seq) == [5])
        let trip = try HailJSON.decode(
            Trip.self, from: await h.call("GET", "/v1/trips/trip-1", token: h.token(.rider, "rider-1")).body)
        #expect(trip.driverLocation?.seq == 5)
        #expect(trip.driverLocation?.ageOrigin == fixAt)
        // Nothing of it reaches the trip's history either: the fare is built from fixes (where the car stood at
        // the start, then the fix since).
        let history = try await h.services.history.history(tripID: "trip-1")
        #expect(history.map(\.t) == [started, fixAt])
        // The fix keeps the phone's heading and speed, which the fare's match weighs; where the car stood at the start
        // has neither (a car may leave the other way from the one it came to rest facing).
        #expect(history.last.map { [$0.heading, $0.speed] } == [90, 8])
        #expect(history.first.map { [$0.heading, $0.speed] } == [nil, nil])
    }

    /// Issue 14: after a dead zone, a multipath outlier sent live was judged from the last fix before the dead zone,
    /// and the allowance of 200 km/h over the gap let it through: the car was shown live on a road it had left.
    /// The backlog flushed before it is the reference now.
    @Test func aLiveFixIsJudgedFromTheBacklogFlushedBeforeIt() async throws {
        let h = await ServerHarness()
        try await RideFlowTests.tripOnTrip(h)
        var riders = await TopicReader(h.services.bus, .trip("trip-1"))
        h.advance(seconds: 1)
        let start = h.now
        await Self.send(h, "driver-1", try Self.batch(seq: 5, at: Self.parked, t: start))
        // A 20 s dead zone, 10 m north a second; its fixes come back as backlog.
        h.advance(seconds: 21)
        let north = { (metres: Double) in Coordinate(lat: Self.parked.lat + metres / 111_195, lng: Self.parked.lng) }
        let backlog = (1...20).map {
            LocationPoint(
                lat: north(Double($0) * 10).lat, lng: Self.parked.lng, accuracy: 5, heading: 0, speed: 10,
                t: start + Double($0))
        }
        await Self.send(h, "driver-1", try HailJSON.encode(LocationBatch(seq: 6, points: backlog, backlog: true)))
        // The live fix after it, 250 m east of where the car is (200 m north): 12 m/s from the fix before the dead
        // zone, 250 m/s from the last fix of the backlog.
        let outlier = Coordinate(
            lat: north(200).lat, lng: Self.parked.lng + 250 / (111_195 * cos(Self.parked.lat * .pi / 180)))
        await Self.send(h, "driver-1", try Self.batch(seq: 7, at: outlier, t: start + 21))
        #expect(try await Self.published(h, &riders).map(\.seq) == [5])
        // The next real fix is shown.
        h.advance(seconds: 1)
        await Self.send(h, "driver-1", try Self.batch(seq: 8, at: north(220), t: start + 22))
        #expect(try await Self.published(h, &riders).map(\.seq) == [8])
    }

    /// Issue 14: a backlog of the way to the pickup, flushed as the trip started, reached the history after the start
    /// and was charged (71 m of a 2,306 m stalls trip, every run).
    @Test func aBacklogOfTheWayToThePickupIsNotCharged() async throws {
        let h = await ServerHarness()
        let approachStart = h.now
        h.advance(seconds: 1)
        try await RideFlowTests.tripOnTrip(h)
        // The trip began where the car stood (its last fix, taken before the start); the phone then flushes fixes of
        // the way there, 500 m south, taken before that fix.
        let south = Coordinate(lat: Self.parked.lat - 0.0045, lng: Self.parked.lng)
        let way = [
            LocationPoint(lat: south.lat, lng: south.lng, accuracy: 5, heading: 0, speed: 10, t: approachStart)
        ]
        await Self.send(h, "driver-1", try HailJSON.encode(LocationBatch(seq: 5, points: way, backlog: true)))
        h.advance(seconds: 60)
        let there = Coordinate(lat: Self.parked.lat + 0.01, lng: Self.parked.lng)
        await Self.send(h, "driver-1", try Self.batch(seq: 6, at: there, t: h.now))
        let trip = try await Self.end(h)
        let history = try await h.services.history.history(tripID: "trip-1")
        #expect(history.map(\.backlog) == [true, false, false])
        let started = try #require(history.first { !$0.backlog })
        #expect(trip.receipt?.distanceMeters == Int(started.coordinate.distance(to: there).rounded()))
    }

    /// Issue 14: a dead zone at the drop-off kept the trip's last fixes on the phone while "ended" got through
    /// (a 1,070 m chaos trip was charged 931 m, every run); "ended" now carries them.
    @Test func theFixesEndedCarriesArePricedAndThoseTheServerHoldsCountOnce() async throws {
        let h = await ServerHarness()
        try await RideFlowTests.tripOnTrip(h)
        let start = h.now
        let parkedFix = LocationPoint(
            lat: Self.parked.lat, lng: Self.parked.lng, accuracy: 5, heading: 0, speed: 0, t: start)
        await Self.send(h, "driver-1", try HailJSON.encode(LocationBatch(seq: 5, points: [parkedFix])))
        // 120 s north in a dead zone: the server heard nothing of it.
        h.advance(seconds: 120)
        let halfway = Coordinate(lat: Self.parked.lat + 0.025, lng: Self.parked.lng)
        let there = Coordinate(lat: Self.parked.lat + 0.05, lng: Self.parked.lng)
        let path = [
            parkedFix,
            LocationPoint(lat: halfway.lat, lng: halfway.lng, accuracy: 5, heading: 0, speed: 23, t: start + 60),
            // A multipath outlier 3 km east a second later: judged as a backlog's fixes are, it stays out.
            LocationPoint(lat: halfway.lat, lng: halfway.lng + 0.04, accuracy: 5, heading: 0, speed: 23, t: start + 61),
            LocationPoint(lat: there.lat, lng: there.lng, accuracy: 5, heading: 0, speed: 0, t: start + 120),
        ]
        let driver = h.token(.driver, "driver-1")
        // A path goes only with "ended": with "arrived" it is refused, naming the field, and nothing is stored.
        let refused = await h.call(
            "POST", "/v1/trips/trip-1/events", token: driver,
            body: try HailJSON.encode(
                TripEventRequest(event: .arrived, idempotencyKey: UUID().uuidString.lowercased(), path: path)))
        #expect(refused.status == 400)
        #expect(try HailJSON.decode(ErrorBody.self, from: refused.body).error.field == "path")
        #expect(try await h.services.history.history(tripID: "trip-1").count == 1)
        let ended = await h.call(
            "POST", "/v1/trips/trip-1/events", token: driver,
            body: try HailJSON.encode(
                TripEventRequest(event: .ended, idempotencyKey: UUID().uuidString.lowercased(), path: path)))
        #expect(ended.status == 200)
        let trip = try HailJSON.decode(Trip.self, from: ended.body)
        #expect(trip.receipt?.distanceMeters == Int(Self.parked.distance(to: there).rounded()))
        // The parked fix the server held already is in the history once.
        #expect(try await h.services.history.history(tripID: "trip-1").map(\.t) == [start, start + 60, start + 120])
    }

    @Test func aCompletedTripsReceiptSaysWhatTheFareCharged() async throws {
        let h = await ServerHarness()
        try await RideFlowTests.tripOnTrip(h)
        // 5.6 km north along the straight line (no road network in the harness), over 120 s.
        await Self.send(h, "driver-1", try Self.batch(seq: 5, at: Self.parked, t: h.now))
        h.advance(seconds: 120)
        let there = Coordinate(lat: Self.parked.lat + 0.05, lng: Self.parked.lng)
        await Self.send(h, "driver-1", try Self.batch(seq: 6, at: there, t: h.now))
        let trip = try await Self.end(h)
        let metres = Int(Self.parked.distance(to: there).rounded())
        #expect(trip.receipt == TripReceipt(distanceMeters: metres, durationSeconds: 120))
        // The fare is the tariff on exactly those, above the minimum: 2.50 + 1.20 per km + 0.30 per minute.
        let tariff = try #require(PricingTable.standard.tariffs[.economy])
        #expect(
            trip.fare?.amountMinor
                == tariff.baseMinor + (metres * tariff.perKilometreMinor + 500) / 1000
                + (120 * tariff.perMinuteMinor + 30) / 60
        )
        // The rider reads the same receipt.
        let read = try HailJSON.decode(
            Trip.self, from: await h.call("GET", "/v1/trips/trip-1", token: h.token(.rider, "rider-1")).body)
        #expect(read.receipt == trip.receipt)
    }
}
