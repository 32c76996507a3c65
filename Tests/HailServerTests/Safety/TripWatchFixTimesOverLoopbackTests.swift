import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

/// The trip watch judges a car by when its fixes were taken, whenever they reach the server: a standing car's
/// keep-alives held up by a stalled socket are still a stop, and a wrong turn taken in a dead zone is raised as soon
/// as the phone's buffer of it arrives (the generated city's roads, the services' manual clock).
@Suite("Trip watch by fix times, over the ingest path")
struct TripWatchFixTimesOverLoopbackTests {
    typealias Loop = TripAlertOverLoopbackTests

    /// A harness with trip-1 under way from avenue 2's first corner to its sixth, the car at the pickup, called over
    /// loopback through the real server (a wait for the alert then suspends on the socket rather than holding a thread
    /// of the pool the alert is raised on).
    static func underWay() async throws -> (ServerHarness, BackendServer) {
        var h = await ServerHarness(flags: "")
        var options = BackendServer.Options()
        options.port = 0
        options.log = nil
        let server = try await BackendServer.start(services: h.services, options: options)
        h.baseURL = "http://127.0.0.1:\(server.port)"
        try await h.assignedTrip(pickup: Loop.pickup, dropoff: Loop.dropoff, driverAt: Loop.pickup)
        for event in ["arrived", "started"] {
            let response = await h.call(
                "POST", "/v1/trips/trip-1/events", token: h.token(.driver, "driver-1"),
                json: #"{"event": "\#(event)", "idempotencyKey": "\#(UUID().uuidString)"}"#)
            #expect(response.status == 200)
        }
        return (h, server)
    }

    /// One batch of fixes at `at`, taken at `times`, live or backlog, heading `heading`, at `speed`.
    static func batch(
        seq: Int64, _ points: [(Coordinate, Date)], backlog: Bool = false, heading: Double = 0, speed: Double = 0
    ) throws -> Data {
        let fixes = points.map {
            LocationPoint(
                lat: $0.0.lat, lng: $0.0.lng, accuracy: 5, heading: heading, speed: speed, t: $0.1)
        }
        return try HailJSON.encode(LocationBatch(seq: seq, points: fixes, backlog: backlog))
    }

    /// The trip's alert now, if any.
    static func alert(_ h: ServerHarness) async throws -> TripAlert? {
        try await h.services.trips.record(id: "trip-1")?.alert
    }

    @Test func aStandingCarsKeepAlivesHeldUpByAStallAreStillOneStop() async throws {
        let (h, server) = try await Self.underWay()
        defer { Task { await server.shutdown() } }
        var seq: Int64 = 10
        let stand = ServerHarness.corner(2, 3)
        await Loop.drive(h, from: Loop.pickup, to: stand, seq: &seq)
        let since = h.now
        // A keep-alive every 12 s where it stands. The socket stalls from 84 s to 132 s: the four taken meanwhile
        // arrive together at 132 s, 48 s after the last one before (a gap that started the count again).
        func send(_ ks: ClosedRange<Int>) async throws {
            for k in ks {
                let response = await FixTimeIngestTests.send(
                    h, "driver-1", try Self.batch(seq: seq, [(stand, since.addingTimeInterval(Double(k) * 12))]))
                #expect(response.status == 200)
                seq += 1
            }
        }
        for k in 1...16 where k <= 7 || k >= 11 {
            h.advance(seconds: since.addingTimeInterval(Double(k) * 12).timeIntervalSince(h.now))
            try await send(k == 11 ? 8...11 : k...k)
        }
        // Standing since it came to the corner; 3 minutes of it by its fixes' times at the fix taken at 180 s.
        try await EarlyCloseTests.eventually(h, "the long stop") { await Loop.alerts(h) == 1 }
        let alert = try #require(try await Self.alert(h))
        #expect(alert.kind == .longStop)
        #expect(alert.since == since)
        #expect(alert.raisedAt == since.addingTimeInterval(180))
    }

    @Test func aWrongTurnInADeadZoneIsRaisedWhenItsBacklogArrives() async throws {
        let (h, server) = try await Self.underWay()
        defer { Task { await server.shutdown() } }
        var seq: Int64 = 10
        await Loop.drive(h, from: Loop.pickup, to: ServerHarness.corner(2, 2), seq: &seq)
        let turnedAt = h.now
        // In a dead zone from the turn: east along street 2, a fix every 3 s, 30 m apart, buffered on the phone.
        let from = ServerHarness.corner(2, 2)
        let to = ServerHarness.corner(5, 2)
        let steps = Int((from.distance(to: to) / 30).rounded(.up))
        let taken = (1...steps).map { step in
            (from.interpolated(to: to, fraction: Double(step) / Double(steps)), turnedAt + Double(step) * 3)
        }
        h.advance(seconds: Double(steps) * 3 + 5)
        #expect(try await Self.alert(h) == nil)
        // The link comes back: the buffer goes first, as backlog.
        let arrived = h.now
        let response = await FixTimeIngestTests.send(
            h, "driver-1", try Self.batch(seq: seq, taken, backlog: true, heading: 90, speed: 10))
        #expect(response.status == 200)
        try await EarlyCloseTests.eventually(h, "the deviation") { await Loop.alerts(h) == 1 }
        let alert = try #require(try await Self.alert(h))
        #expect(alert.kind == .routeDeviation)
        // Out of the 100 m corridor from the fourth fix after the turn, as when the fixes came live; raised as the
        // backlog arrived.
        #expect(alert.since == turnedAt.addingTimeInterval(12))
        #expect(alert.raisedAt == arrived)
    }
}
