import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

@Suite("SQLite stores survive a restart")
struct DurabilityTests {
    static func temporaryDatabase() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hail-\(UUID().uuidString).db").path
    }

    @Test func aRestartedServerKeepsTripsVersionsAndIdempotencyRecords() async throws {
        let path = Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let key = UUID().uuidString
        var firstBody = Data()
        do {
            let stores = try await SQLiteTripStores.open(path: path)
            let h = await ServerHarness(trips: stores.trips, history: stores.history)
            try await RideFlowTests.tripOnTrip(h)
            let created = await h.call(
                "POST", "/v1/trips", token: h.token(.rider, "rider-9"), json: ServerHarness.requestBody(), key: key)
            firstBody = created.body
        }
        let stores = try await SQLiteTripStores.open(path: path)
        let h = await ServerHarness(trips: stores.trips, history: stores.history)
        let trip = try #require(try await stores.trips.record(id: "trip-1"))
        #expect(trip.trip.state == .onTrip)
        #expect(trip.trip.version == 4)
        #expect(trip.trip.driver?.id == "driver-1")
        #expect(try await stores.trips.events(tripID: "trip-1").map(\.version) == [1, 2, 3, 4])
        // The same key after the restart replays the first answer; no second trip.
        let replay = await h.call(
            "POST", "/v1/trips", token: h.token(.rider, "rider-9"), json: ServerHarness.requestBody(), key: key)
        #expect(replay.status == 201)
        #expect(replay.body == firstBody)
        #expect(try await stores.trips.activeRecords().count == 2)
    }

    @Test func aStaleVersionDoesNotCommit() async throws {
        let path = Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let stores = try await SQLiteTripStores.open(path: path)
        let trip = Trip(
            id: "t", state: .searching, pickup: ServerHarness.pickup, dropoff: ServerHarness.dropoff,
            productID: .economy, version: 1)
        let event = TripEventRecord(
            tripID: "t", version: 1, intent: "request", actor: "rider:r", state: .searching, at: ServerHarness.epoch)
        #expect(
            try await stores.trips.commit(
                TripCommit(record: TripRecord(trip: trip, riderID: "r"), expectedVersion: nil, event: event))
                == .committed)
        // Two racers both read version 1; only the first to commit wins.
        var next = trip
        next.version = 2
        next.state = .cancelled
        var event2 = event
        event2.version = 2
        #expect(
            try await stores.trips.commit(
                TripCommit(record: TripRecord(trip: next, riderID: "r"), expectedVersion: 1, event: event2))
                == .committed)
        next.state = .noDriversFound
        #expect(
            try await stores.trips.commit(
                TripCommit(record: TripRecord(trip: next, riderID: "r"), expectedVersion: 1, event: event2))
                == .conflict)
        #expect(try await stores.trips.record(id: "t")?.trip.state == .cancelled)
    }

    /// An unverified arrival keeps its intent's name in the log; the mark is its own column, kept across a restart.
    @Test func anAuditLinesDetailSurvivesARestart() async throws {
        let path = Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var trip = Trip(
            id: "t", state: .searching, pickup: ServerHarness.pickup, dropoff: ServerHarness.dropoff,
            productID: .economy, version: 1)
        do {
            let stores = try await SQLiteTripStores.open(path: path)
            let request = TripEventRecord(
                tripID: "t", version: 1, intent: "request", actor: "rider:r", state: .searching, at: ServerHarness.epoch
            )
            #expect(
                try await stores.trips.commit(
                    TripCommit(record: TripRecord(trip: trip, riderID: "r"), expectedVersion: nil, event: request))
                    == .committed)
            trip.version = 2
            trip.state = .driverArrived
            let arrived = TripEventRecord(
                tripID: "t", version: 2, intent: "arrived", actor: "driver:d", state: .driverArrived,
                at: ServerHarness.epoch, detail: "unverified")
            #expect(
                try await stores.trips.commit(
                    TripCommit(record: TripRecord(trip: trip, riderID: "r"), expectedVersion: 1, event: arrived))
                    == .committed)
        }
        let stores = try await SQLiteTripStores.open(path: path)
        let log = try await stores.trips.events(tripID: "t").map { "\($0.intent) \($0.detail ?? "-")" }
        #expect(log == ["request -", "arrived unverified"])
    }
}
