import Foundation
import HailCore
import HailScale
import HailServer
import Testing

@Suite(
    "PostgreSQL stores keep what the SQLite ones keep",
    .enabled(if: ScaleServices.hasPostgres, "start PostgreSQL with scripts/services.sh"))
struct PostgresTripStoreTests {
    static let epoch = Date(timeIntervalSince1970: 1_796_220_000)
    static let pickup = Coordinate(lat: 43.7396, lng: 7.4276)
    static let dropoff = Coordinate(lat: 43.7314, lng: 7.4197)
    static let driver = Driver(
        id: "driver-1", name: "Ana", carModel: "Zoe", plate: "MC-1", rating: 4.9,
        photoURL: URL(string: "https://example.invalid/ana.jpg")!)

    static func commit(
        _ id: String, version: Int, state: TripState, expected: Int?, driver: Driver? = nil,
        idempotency: IdempotencyEntry? = nil, rider: String = "r"
    ) -> TripCommit {
        var trip = Trip(
            id: id, state: state, pickup: pickup, dropoff: dropoff, productID: .economy, version: version)
        trip.driver = driver
        let event = TripEventRecord(
            tripID: id, version: version, intent: "step\(version)", actor: "rider:r", state: state,
            at: epoch.addingTimeInterval(Double(version)))
        return TripCommit(
            record: TripRecord(trip: trip, riderID: rider), expectedVersion: expected, event: event,
            idempotency: idempotency)
    }

    static func entry(key: String, body: String) -> IdempotencyEntry {
        IdempotencyEntry(
            scope: IdempotencyScope(principal: "rider:r", route: "requestTrip", key: key),
            response: StoredResponse(
                status: 201, body: Data(body.utf8), requestFingerprint: Data([0, 1, 0xfe, 0xff]), createdAt: epoch))
    }

    @Test func anotherInstanceSeesTripsVersionsEventsAndIdempotencyRecords() async throws {
        try await ScaleServices.withFreshSchema { url, schema in
            let key = UUID().uuidString
            do {
                let stores = try await PostgresTripStores.open(url: url, schema: schema, connections: 2)
                defer { stores.close() }
                let steps: [(TripState, Driver?)] = [
                    (.searching, nil), (.driverAssigned, Self.driver), (.driverArrived, Self.driver),
                    (.onTrip, Self.driver),
                ]
                for (index, step) in steps.enumerated() {
                    let outcome = try await stores.trips.commit(
                        Self.commit(
                            "trip-1", version: index + 1, state: step.0, expected: index == 0 ? nil : index,
                            driver: step.1, idempotency: index == 0 ? Self.entry(key: key, body: "{\"id\":1}") : nil))
                    #expect(outcome == .committed)
                }
                #expect(
                    try await stores.trips.commit(
                        Self.commit("trip-2", version: 1, state: .searching, expected: nil, rider: "r2")) == .committed)
            }
            // A new instance (a restarted node, or another one) finds everything.
            let stores = try await PostgresTripStores.open(url: url, schema: schema, connections: 1)
            defer { stores.close() }
            let trip = try #require(try await stores.trips.record(id: "trip-1"))
            #expect(trip.trip.state == .onTrip)
            #expect(trip.trip.version == 4)
            #expect(trip.trip.driver?.id == "driver-1")
            #expect(try await stores.trips.events(tripID: "trip-1").map(\.version) == [1, 2, 3, 4])
            #expect(try await stores.trips.events(tripID: "trip-1").last?.state == .onTrip)
            #expect(try await stores.trips.activeRecords().map(\.trip.id) == ["trip-1", "trip-2"])
            #expect(try await stores.trips.activeRecord(riderID: "r")?.trip.id == "trip-1")
            #expect(try await stores.trips.activeRecord(driverID: "driver-1")?.trip.version == 4)
            #expect(try await stores.trips.activeRecord(driverID: "driver-2") == nil)
            let stored = try #require(
                try await stores.trips.storedResponse(
                    for: IdempotencyScope(principal: "rider:r", route: "requestTrip", key: key)))
            #expect(stored == Self.entry(key: key, body: "{\"id\":1}").response)
            #expect(
                try await stores.trips.storedResponse(
                    for: IdempotencyScope(principal: "rider:other", route: "requestTrip", key: key)) == nil)
        }
    }

    @Test func aStaleVersionDoesNotCommit() async throws {
        try await ScaleServices.withFreshSchema { url, schema in
            let stores = try await PostgresTripStores.open(url: url, schema: schema, connections: 1)
            defer { stores.close() }
            #expect(
                try await stores.trips.commit(Self.commit("t", version: 1, state: .searching, expected: nil))
                    == .committed)
            // Two racers both read version 1; only the first to commit wins.
            #expect(
                try await stores.trips.commit(Self.commit("t", version: 2, state: .cancelled, expected: 1))
                    == .committed)
            #expect(
                try await stores.trips.commit(Self.commit("t", version: 2, state: .noDriversFound, expected: 1))
                    == .conflict)
            #expect(try await stores.trips.record(id: "t")?.trip.state == .cancelled)
            // A finished trip is no longer anyone's active trip.
            #expect(try await stores.trips.activeRecords().isEmpty)
            #expect(try await stores.trips.activeRecord(riderID: "r") == nil)
            // Creating a trip that exists is a conflict too.
            #expect(
                try await stores.trips.commit(Self.commit("t", version: 1, state: .searching, expected: nil))
                    == .conflict)
            #expect(try await stores.trips.events(tripID: "t").map(\.state) == [.searching, .cancelled])
        }
    }

    /// An audit line's detail (an unverified arrival) is its own column, beside the intent's unchanged name.
    @Test func anAuditLinesDetailIsKeptBesideItsIntent() async throws {
        try await ScaleServices.withFreshSchema { url, schema in
            let stores = try await PostgresTripStores.open(url: url, schema: schema, connections: 1)
            defer { stores.close() }
            #expect(
                try await stores.trips.commit(Self.commit("t", version: 1, state: .searching, expected: nil))
                    == .committed)
            var arrived = Self.commit("t", version: 2, state: .driverArrived, expected: 1)
            arrived.event.intent = "arrived"
            arrived.event.detail = "unverified"
            #expect(try await stores.trips.commit(arrived) == .committed)
            let log = try await stores.trips.events(tripID: "t").map { "\($0.intent) \($0.detail ?? "-")" }
            #expect(log == ["step1 -", "arrived unverified"])
        }
    }

    @Test func aUsedIdempotencyKeyRollsTheWholeCommitBack() async throws {
        try await ScaleServices.withFreshSchema { url, schema in
            let stores = try await PostgresTripStores.open(url: url, schema: schema, connections: 1)
            defer { stores.close() }
            let first = Self.commit(
                "a", version: 1, state: .searching, expected: nil, idempotency: Self.entry(key: "k", body: "a"))
            #expect(try await stores.trips.commit(first) == .committed)
            // Another rider's trip, so that only the key (not the one-active-trip index) stands in the way.
            let second = Self.commit(
                "b", version: 1, state: .searching, expected: nil, idempotency: Self.entry(key: "k", body: "b"),
                rider: "r2")
            #expect(try await stores.trips.commit(second) == .conflict)
            #expect(try await stores.trips.record(id: "b") == nil)
            #expect(try await stores.trips.events(tripID: "b").isEmpty)
            let stored = try await stores.trips.storedResponse(
                for: IdempotencyScope(principal: "rider:r", route: "requestTrip", key: "k"))
            #expect(stored?.body == Data("a".utf8))
        }
    }

    @Test func twoNodesRacingOnOneTripNeverBothWin() async throws {
        try await ScaleServices.withFreshSchema { url, schema in
            let nodeA = try await PostgresTripStores.open(url: url, schema: schema, connections: 1)
            let nodeB = try await PostgresTripStores.open(url: url, schema: schema, connections: 1)
            defer {
                nodeA.close()
                nodeB.close()
            }
            for round in 0..<20 {
                let id = "race-\(round)"
                // A rider and a driver per round: a round's trip may stay active, and each may have only one.
                let rider = "r-\(round)"
                var driver = Self.driver
                driver.id = "driver-\(round)"
                // Both create the trip at once: one insert wins, the other meets the primary key.
                let created = try await Self.race(
                    nodeA.trips, Self.commit(id, version: 1, state: .searching, expected: nil, rider: rider),
                    nodeB.trips, Self.commit(id, version: 1, state: .searching, expected: nil, rider: rider))
                #expect(created.filter { $0 == .committed }.count == 1)
                // A double accept (or an accept racing a cancel) from version 1: exactly one wins.
                var accept = Self.commit(
                    id, version: 2, state: .driverAssigned, expected: 1, driver: driver, rider: rider)
                accept.event.actor = "driver:\(driver.id)"
                let cancel = Self.commit(id, version: 2, state: .cancelled, expected: 1, rider: rider)
                let outcomes = try await Self.race(nodeA.trips, accept, nodeB.trips, cancel)
                #expect(outcomes.filter { $0 == .committed }.count == 1)
                let winner = outcomes[0] == .committed ? accept : cancel
                #expect(try await nodeA.trips.record(id: id)?.trip.state == winner.record.trip.state)
                #expect(try await nodeB.trips.events(tripID: id).map(\.version) == [1, 2])
            }
        }
    }

    /// Two nodes' reconcilers passing at once: an owed change goes to one of them, not to both.
    @Test func anOwedChangeIsClaimedByOneNodeUntilItIsMarkedPublished() async throws {
        try await ScaleServices.withFreshSchema { url, schema in
            let nodeA = try await PostgresTripStores.open(url: url, schema: schema, connections: 1)
            let nodeB = try await PostgresTripStores.open(url: url, schema: schema, connections: 1)
            defer {
                nodeA.close()
                nodeB.close()
            }
            #expect(
                try await nodeA.trips.commit(Self.commit("owed-1", version: 1, state: .searching, expected: nil))
                    == .committed)
            #expect(
                try await nodeA.trips.commit(
                    Self.commit("owed-2", version: 1, state: .searching, expected: nil, rider: "r-2")) == .committed)
            let before = Self.epoch.addingTimeInterval(10)
            #expect(try await nodeA.trips.unpublished(committedBefore: before, limit: 1).map(\.trip.id) == ["owed-1"])
            // Node B's pass finds owed-1 claimed and takes the next; node A's next pass finds both claimed.
            #expect(try await nodeB.trips.unpublished(committedBefore: before, limit: 10).map(\.trip.id) == ["owed-2"])
            #expect(try await nodeA.trips.unpublished(committedBefore: before, limit: 10).isEmpty)
            try await nodeA.trips.markPublished(["owed-1": 1])
            try await nodeB.trips.markPublished(["owed-2": 1])
            #expect(try await nodeB.trips.unpublished(committedBefore: before, limit: 10).isEmpty)
        }
    }

    @Test func theActiveTripsOfSomeDriversAreReadWithoutTheOthers() async throws {
        try await ScaleServices.withFreshSchema { url, schema in
            let stores = try await PostgresTripStores.open(url: url, schema: schema, connections: 1)
            defer { stores.close() }
            for index in 1...3 {
                var driver = Self.driver
                driver.id = "driver,\(index)"
                let id = "trip-\(index)"
                #expect(
                    try await stores.trips.commit(
                        Self.commit(id, version: 1, state: .searching, expected: nil, rider: "r-\(index)"))
                        == .committed)
                #expect(
                    try await stores.trips.commit(
                        Self.commit(
                            id, version: 2, state: .driverAssigned, expected: 1, driver: driver, rider: "r-\(index)"))
                        == .committed)
            }
            let read = try await stores.trips.activeRecords(driverIDs: ["driver,3", "driver,1", "driver,9"])
            #expect(read.map(\.trip.id) == ["trip-1", "trip-3"])
            #expect(try await stores.trips.activeRecords(driverIDs: []).isEmpty)
        }
    }

    @Test func historyIgnoresResentPointsAndKeepsDeviceTimeOrder() async throws {
        try await ScaleServices.withFreshSchema { url, schema in
            let stores = try await PostgresTripStores.open(url: url, schema: schema, connections: 1)
            defer { stores.close() }
            func point(_ second: Double, backlog: Bool = false) -> HistoryPoint {
                HistoryPoint(
                    coordinate: Coordinate(lat: 43.7 + second / 10_000, lng: 7.42),
                    // Built from seconds since 1970, the form stored, so equality checks the exact round trip.
                    t: Date(timeIntervalSince1970: 1_796_220_000.123 + second),
                    receivedAt: Date(timeIntervalSince1970: 1_796_220_100), backlog: backlog,
                    heading: backlog ? nil : 90 + second, speed: backlog ? nil : 12.25, standing: second == 1)
            }
            try await stores.history.append(tripID: "h", points: [point(1), point(3)])
            // The resent batch and a backlog point from the offline buffer, arriving later than newer ones.
            try await stores.history.append(tripID: "h", points: [point(3), point(2, backlog: true), point(4)])
            try await stores.history.append(tripID: "other", points: [point(9)])
            let history = try await stores.history.history(tripID: "h")
            #expect(history == [point(1), point(2, backlog: true), point(3), point(4)])
            #expect(try await stores.history.history(tripID: "none").isEmpty)
        }
    }

    @Test func aConnectionTheServerDroppedIsReplacedBeforeTheNextCall() async throws {
        try await ScaleServices.withFreshSchema { url, schema in
            let stores = try await PostgresTripStores.open(url: url, schema: schema, connections: 1)
            defer { stores.close() }
            #expect(
                try await stores.trips.commit(Self.commit("t", version: 1, state: .searching, expected: nil))
                    == .committed)
            let pid = try await stores.pool.run { try $0.query("SELECT pg_backend_pid()")[0].int(0) }
            let admin = try await PostgresPool.connect(url: url, size: 1, migrations: [])
            defer { admin.close() }
            // With a timeout, pg_terminate_backend returns once the backend is gone.
            let killed = try await admin.run { try $0.query("SELECT pg_terminate_backend($1, 5000)", [pid])[0].bool(0) }
            #expect(killed)
            #expect(try await stores.trips.record(id: "t")?.trip.version == 1)
            #expect(try await stores.pool.run { try $0.query("SELECT pg_backend_pid()")[0].int(0) } != pid)
        }
    }

    /// Runs both commits at once on the two nodes and returns their outcomes in argument order.
    static func race(_ a: PostgresTripStore, _ first: TripCommit, _ b: PostgresTripStore, _ second: TripCommit)
        async throws -> [CommitOutcome]
    {
        async let one = a.commit(first)
        async let two = b.commit(second)
        return try await [one, two]
    }

    @Test func pushTokensSurviveAReconnectAndADeadTokenGoesEverywhere() async throws {
        try await ScaleServices.withFreshSchema { url, schema in
            let device = String(repeating: "ab12", count: 16)
            let activity = String(repeating: "cd34", count: 16)
            do {
                let stores = try await PostgresTripStores.open(url: url, schema: schema, connections: 2)
                defer { stores.close() }
                try await stores.trips.saveDevice(
                    DeviceTokenRecord(
                        principal: "rider:r", token: device, environment: .sandbox, bundleID: nil, updatedAt: Self.epoch
                    ))
                try await stores.trips.saveLiveActivity(
                    LiveActivityTokenRecord(tripID: "trip-1", riderID: "r", token: activity, updatedAt: Self.epoch))
                try await stores.trips.saveLiveActivity(
                    LiveActivityTokenRecord(tripID: "trip-2", riderID: "r", token: device, updatedAt: Self.epoch))
                // The same phone signs in as another rider: the token moves.
                try await stores.trips.saveDevice(
                    DeviceTokenRecord(
                        principal: "rider:s", token: device, environment: .production, bundleID: "com.example.rider",
                        updatedAt: Self.epoch))
            }
            let stores = try await PostgresTripStores.open(url: url, schema: schema, connections: 2)
            defer { stores.close() }
            #expect(try await stores.trips.device(principal: "rider:r") == nil)
            #expect(
                try await stores.trips.device(principal: "rider:s")
                    == DeviceTokenRecord(
                        principal: "rider:s", token: device, environment: .production, bundleID: "com.example.rider",
                        updatedAt: Self.epoch))
            #expect(
                try await stores.trips.liveActivity(tripID: "trip-1")
                    == LiveActivityTokenRecord(tripID: "trip-1", riderID: "r", token: activity, updatedAt: Self.epoch))
            try await stores.trips.removePushToken(device)
            #expect(try await stores.trips.device(principal: "rider:s") == nil)
            #expect(try await stores.trips.liveActivity(tripID: "trip-2") == nil)
            try await stores.trips.removeDevice(principal: "rider:s")
            try await stores.trips.removeLiveActivity(tripID: "trip-1")
            #expect(try await stores.trips.liveActivity(tripID: "trip-1") == nil)
        }
    }
}
