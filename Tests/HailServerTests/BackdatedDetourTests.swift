import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

/// Fares from the road actually driven: a backlog older than a fix already accepted, or than the trip's start,
/// is never charged.
@Suite("Back-dated fixes and the fare")
struct BackdatedDetourTests {
    /// The ride of `RideFlowTests.fromRequestToCompletedFare` (10,062 m in 901 s), with whatever `meddle` sends
    /// before the trip ends.
    static func ride(meddle: (ServerHarness) async -> Void) async throws -> Trip {
        let h = await ServerHarness()
        try await RideFlowTests.tripOnTrip(h)
        h.advance(seconds: 1)
        for step in 0...5 {
            if step > 0 { h.advance(seconds: 180) }
            let point = Coordinate(lat: 43.7396 + Double(step) * 0.018, lng: 7.4276)
            #expect(await h.sendLocation("driver-1", seq: Int64(10 + step), at: point).status == 200)
        }
        await meddle(h)
        let ended = await h.call(
            "POST", "/v1/trips/trip-1/events", token: h.token(.driver, "driver-1"),
            json: #"{"event": "ended", "idempotencyKey": "\#(UUID().uuidString)"}"#)
        return try h.trip(from: ended)
    }

    @Test func aBackDatedDetourLeavesTheFareUnchanged() async throws {
        let honest = try await Self.ride { h in
            // The start stored where the car stood (its last fix before the start), marked so: the fare begins there.
            let stored = try? await h.services.history.history(tripID: "trip-1")
            #expect(stored?.filter(\.standing).map(\.coordinate) == [Coordinate(lat: 43.7400, lng: 7.4280)])
            #expect(stored?.first?.standing == true)
        }
        let padded = try await Self.ride { h in
            // Sent as the car is 10 km north: "backlog" fixes dated between the third and fourth live fixes (361 s
            // and 541 s into the trip), a plausible 12 m/s loop up to 970 m east of the road driven.
            let dated = h.now.addingTimeInterval(-900 + 365)
            for (index, east) in [0.003, 0.006, 0.009, 0.012, 0.009, 0.006].enumerated() {
                let response = await h.sendLocation(
                    "driver-1", seq: Int64(20 + index), at: Coordinate(lat: 43.7396 + 0.036, lng: 7.4276 + east),
                    backlog: true, t: dated.addingTimeInterval(Double(index) * 20))
                #expect(response.status == 200)
            }
            let stored = try? await h.services.history.history(tripID: "trip-1")
            #expect(stored?.filter(\.backlog).count == 6, "the detour reached the history; only the fare ignores it")
        }
        #expect(honest.receipt == TripReceipt(distanceMeters: 10_062, durationSeconds: 901))
        #expect(padded.receipt == honest.receipt)
        #expect(padded.fare == honest.fare)
    }

    @Test func aBacklogNewerThanEveryFixHeldIsCharged() {
        let start = Date(timeIntervalSince1970: 1_000)
        func point(_ t: Double, received: Double, backlog: Bool, standing: Bool = false) -> HistoryPoint {
            HistoryPoint(
                coordinate: Coordinate(lat: 43 + t / 1000, lng: 7), t: start.addingTimeInterval(t),
                receivedAt: start.addingTimeInterval(received), backlog: backlog, standing: standing)
        }
        let stored = [
            point(-30, received: 5, backlog: true),  // the way to the pickup, flushed after the start
            point(0, received: 1, backlog: false, standing: true),  // where the car stood, stored with the start
            point(10, received: 11, backlog: false),
            point(20, received: 60, backlog: true),  // a dead zone's fixes, flushed on reconnect: newer, charged
            point(30, received: 60, backlog: true),
            point(40, received: 61, backlog: false),
            point(35, received: 70, backlog: true),  // back-dated between fixes held: not charged
            point(50, received: 80, backlog: true),
        ]
        #expect(
            ChargedFixes.select(stored, startedAt: start).map { $0.t.timeIntervalSince(start) } == [
                0, 10, 20, 30, 40, 50,
            ])
        // With no live fix at all, the start's time bounds the backlog, and its newest fix before the start is where
        // the car stood (the one fix of the way to the pickup the phone keeps and sends with "ended").
        let offline = [
            point(-9, received: 20, backlog: true), point(-5, received: 20, backlog: true),
            point(5, received: 20, backlog: true),
        ]
        #expect(ChargedFixes.select(offline, startedAt: start).map { $0.t.timeIntervalSince(start) } == [-5, 5])
    }

    @Test func aTripWhoseFirstPartCameAsABacklogIsChargedFromWhereTheCarStood() {
        // The phone's clock 2 s behind the server's. Started at 1,000 (server) while the phone had no link: it kept the
        // newest fix of the way to the pickup (-20, where the car stood) and buffered the trip's first 20 s; the link
        // came back at 1,024, with the backlog and the first live fix (received 1 s after it was taken, the quickest).
        let started = Date(timeIntervalSince1970: 1_000)
        func point(_ t: Double, received: Double, backlog: Bool, standing: Bool = false) -> HistoryPoint {
            HistoryPoint(
                coordinate: Coordinate(lat: 43 + t / 1000, lng: 7), t: started.addingTimeInterval(t - 2),
                receivedAt: started.addingTimeInterval(received), backlog: backlog, standing: standing)
        }
        let stored = [
            point(-40, received: 24, backlog: true),  // the way to the pickup, older: not charged
            point(-20, received: 24, backlog: true),  // where the car stood, kept by the phone
            point(2, received: 24, backlog: true),
            point(12, received: 24, backlog: true),
            point(22, received: 24, backlog: true),
            point(23, received: 24, backlog: false),
            point(26, received: 27, backlog: false),
        ]
        #expect(
            ChargedFixes.select(stored, startedAt: started).map { $0.t.timeIntervalSince(started) + 2 } == [
                -20, 2, 12, 22, 23, 26,
            ])
        // The same trip when the server could read where the car stood, a live fix stored with the start: the history
        // begins there, and the backlog before it is the way to the pickup, as before.
        let read = stored + [point(-10, received: 0, backlog: false, standing: true)]
        #expect(
            ChargedFixes.select(read, startedAt: started).map { $0.t.timeIntervalSince(started) + 2 } == [
                -10, 2, 12, 22, 23, 26,
            ])
    }

    @Test func aTripWithNoStoredStartPointIsChargedFromWhereTheCarStoodHoweverSoonItsFirstLiveFixCame() {
        // Started at 1,000 (server; the phone's clock the same) on a node that could not read where the car stood, so
        // no start point was stored. The first batch after the start (a fix at 0.5) went up a stream that died; the
        // next went over HTTP and was stored 1.8 s after the start. The first came back as a backlog at 9 s with the
        // phone's kept fix where the car stood (-4): that one is charged; 0.5, older than fixes held, is not.
        let started = Date(timeIntervalSince1970: 1_000)
        func point(_ t: Double, received: Double, backlog: Bool) -> HistoryPoint {
            HistoryPoint(
                coordinate: Coordinate(lat: 43 + t / 1000, lng: 7), t: started.addingTimeInterval(t),
                receivedAt: started.addingTimeInterval(received), backlog: backlog)
        }
        let stored = [
            point(-12, received: 9, backlog: true),  // the way to the pickup: older than where the car stood
            point(-4, received: 9, backlog: true),
            point(0.5, received: 9, backlog: true),
            point(1.5, received: 1.8, backlog: false),
            point(2.5, received: 2.8, backlog: false),
        ]
        #expect(
            ChargedFixes.select(stored, startedAt: started).map { $0.t.timeIntervalSince(started) } == [-4, 1.5, 2.5])
    }
}
