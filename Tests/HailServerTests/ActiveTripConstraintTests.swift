import Foundation
import HailCore
import HailProtocol
import HailScale
import HailServer
import HailStorage
import Testing

/// The database's own rule, "one active trip per rider and per driver", asked of each store directly, and the schema
/// step that brings it to a database written before it (which may hold duplicates).
@Suite("The database allows one active trip per rider and per driver")
struct ActiveTripConstraintTests {
    static let epoch = Date(timeIntervalSince1970: 1_796_220_000)

    static func driver(_ id: String) -> Driver {
        Driver(
            id: id, name: "Ana", carModel: "Zoe", plate: "MC-1", rating: 4.9,
            photoURL: URL(string: "https://example.invalid/ana.jpg")!)
    }

    static func record(_ id: String, rider: String, state: TripState, driver: String? = nil, version: Int = 1)
        -> TripRecord
    {
        var trip = Trip(
            id: id, state: state, pickup: Coordinate(lat: 43.7396, lng: 7.4276),
            dropoff: Coordinate(lat: 43.7314, lng: 7.4197), productID: .economy, version: version)
        trip.driver = driver.map(Self.driver)
        if driver != nil { trip.etaSeconds = 120 }
        return TripRecord(trip: trip, riderID: rider)
    }

    static func commit(_ record: TripRecord, expected: Int?, key: String? = nil) -> TripCommit {
        TripCommit(
            record: record, expectedVersion: expected,
            event: TripEventRecord(
                tripID: record.trip.id, version: record.trip.version, intent: "step", actor: "system",
                state: record.trip.state, at: epoch),
            idempotency: key.map {
                IdempotencyEntry(
                    scope: IdempotencyScope(principal: "rider:\(record.riderID)", route: "requestTrip", key: $0),
                    response: StoredResponse(
                        status: 201, body: Data("{}".utf8), requestFingerprint: Data(), createdAt: epoch))
            })
    }

    /// A store of `backend` in a fresh file or schema, closed and removed after `body`.
    static func withStore(_ backend: Backend, _ body: (any TripStore) async throws -> Void) async throws {
        switch backend {
        case .embedded:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-one-\(UUID().uuidString).db")
                .path
            defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
            try await body(try await SQLiteTripStores.open(path: path).trips)
        case .scaled:
            let url = try #require(ProcessInfo.processInfo.environment["HAIL_POSTGRES_URL"], "run scripts/services.sh")
            let schema = "hail_one_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let stores = try await PostgresTripStores.open(url: url, schema: schema, connections: 1)
            do {
                try await body(stores.trips)
            } catch {
                stores.close()
                await Self.dropSchema(url: url, schema: schema)
                throw error
            }
            stores.close()
            await Self.dropSchema(url: url, schema: schema)
        }
    }

    static func dropSchema(url: String, schema: String) async {
        guard let pool = try? await PostgresPool.connect(url: url, size: 1, migrations: []) else { return }
        _ = try? await pool.run { connection in try connection.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        pool.close()
    }

    @Test(arguments: Backend.allCases) func aSecondActiveTripIsRefusedAndWritesNothing(backend: Backend) async throws {
        try await Self.withStore(backend) { (store: any TripStore) async throws in
            #expect(
                try await store.commit(Self.commit(Self.record("t-1", rider: "r-1", state: .searching), expected: nil))
                    == .committed)
            // A second request of the same rider: refused by the index, naming the first, and nothing of it kept.
            let second = Self.commit(Self.record("t-2", rider: "r-1", state: .searching), expected: nil, key: "k-2")
            #expect(
                try await store.commit(second)
                    == .activeTripTaken(ActiveTripConflict(party: .rider, subject: "r-1", tripID: "t-1")))
            #expect(try await store.record(id: "t-2") == nil)
            #expect(try await store.events(tripID: "t-2").isEmpty)
            #expect(try await store.storedResponse(for: second.idempotency!.scope) == nil)

            // A driver on t-1 accepting t-3 is refused the same way, and t-3 stays as it was.
            let assigned = Self.record("t-1", rider: "r-1", state: .driverAssigned, driver: "d-1", version: 2)
            #expect(try await store.commit(Self.commit(assigned, expected: 1)) == .committed)
            #expect(
                try await store.commit(Self.commit(Self.record("t-3", rider: "r-3", state: .searching), expected: nil))
                    == .committed)
            let stolen = Self.record("t-3", rider: "r-3", state: .driverAssigned, driver: "d-1", version: 2)
            #expect(
                try await store.commit(Self.commit(stolen, expected: 1))
                    == .activeTripTaken(ActiveTripConflict(party: .driver, subject: "d-1", tripID: "t-1")))
            #expect(try await store.record(id: "t-3")?.trip.version == 1)
            #expect(try await store.events(tripID: "t-3").map(\.version) == [1])

            // Ended trips do not count: once t-1 is completed, its rider and its driver may each have another.
            let done = Self.record("t-1", rider: "r-1", state: .completed, driver: "d-1", version: 3)
            #expect(try await store.commit(Self.commit(done, expected: 2)) == .committed)
            #expect(try await store.commit(Self.commit(stolen, expected: 1)) == .committed)
            #expect(
                try await store.commit(Self.commit(Self.record("t-4", rider: "r-1", state: .searching), expected: nil))
                    == .committed)
            // Trips without a driver never clash on the driver's index.
            #expect(
                try await store.commit(Self.commit(Self.record("t-5", rider: "r-5", state: .searching), expected: nil))
                    == .committed)
        }
    }

    // MARK: The schema step on a database that already holds duplicates

    /// Trips as the bug left them, each requested at `epoch + requested` seconds: (id, rider, state, driver, requested).
    static let duplicates: [(String, String, TripState, String?, Double)] = [
        // Rider r-1 asked three times and one found a driver: that one is kept, the two searches are cancelled.
        ("a1", "r-1", .searching, nil, 1), ("a2", "r-1", .searching, nil, 2), ("a3", "r-1", .driverAssigned, "d-9", 3),
        // Rider r-2 asked twice: the first is kept.
        ("b1", "r-2", .searching, nil, 1), ("b2", "r-2", .searching, nil, 2),
        // Driver d-2 took a second trip while on one: its rider gets another driver.
        ("c1", "r-3", .onTrip, "d-2", 1), ("c2", "r-4", .driverAssigned, "d-2", 2),
        // Driver d-3 is at one pickup and was given another at its pickup too: the later one is cancelled.
        ("e1", "r-5", .driverArrived, "d-3", 1), ("e2", "r-6", .driverArrived, "d-3", 2),
        // An ordinary trip is left alone.
        ("f1", "r-7", .onTrip, "d-7", 1),
    ]

    /// What each duplicate becomes: (id, state, version, driver).
    static let parted: [(String, TripState, Int, String?)] = [
        ("a1", .cancelled, 2, nil), ("a2", .cancelled, 2, nil), ("a3", .driverAssigned, 1, "d-9"),
        ("b1", .searching, 1, nil), ("b2", .cancelled, 2, nil),
        ("c1", .onTrip, 1, "d-2"), ("c2", .searching, 2, nil),
        ("e1", .driverArrived, 1, "d-3"), ("e2", .cancelled, 2, "d-3"),
        ("f1", .onTrip, 1, "d-7"),
    ]

    static func expectParted(_ store: any TripStore) async throws {
        for (id, state, version, driver) in Self.parted {
            let record = try #require(try await store.record(id: id), "\(id)")
            #expect(record.trip.state == state, "\(id)")
            #expect(record.trip.version == version, "\(id)")
            #expect(record.driverID == driver, "\(id)")
            let events = try await store.events(tripID: id)
            #expect(events.map(\.version) == Array(1...version), "\(id)")
            if version == 2 {
                #expect(events.last?.actor == "system")
                #expect(events.last?.state == state)
                #expect(events.last?.intent == (state == .searching ? "duplicateDriverReleased" : "duplicateCancelled"))
                #expect(TripTransitions.isAllowed(from: events[0].state, to: state))
            }
            if state == .searching { #expect(record.trip.etaSeconds == nil && record.trip.driverLocation == nil) }
        }
        #expect(try await store.activeRecords().map(\.trip.id) == ["a3", "b1", "c1", "c2", "e1", "f1"])
        // The rule holds from now on.
        let again = Self.commit(Self.record("a4", rider: "r-1", state: .searching), expected: nil)
        #expect(
            try await store.commit(again)
                == .activeTripTaken(ActiveTripConflict(party: .rider, subject: "r-1", tripID: "a3")))
    }

    static let sqliteInsert = """
        INSERT INTO trips (id, rider_id, driver_id, state, version, active, record, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// A SQLite file at the schema before the step, holding `trips` and their first audit lines.
    static func oldSQLiteFile(_ trips: [(String, String, TripState, String?, Double)]) async throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-old-\(UUID().uuidString).db")
            .path
        let database = try await SQLiteDatabase.open(
            .file(path), migrations: Array(SQLiteTripStores.migrations.prefix(3)))
        for (id, rider, state, driver, requested) in trips {
            let record = Array(try HailJSON.encode(Self.record(id, rider: rider, state: state, driver: driver)))
            let at = epoch.timeIntervalSince1970 + requested
            try await database.write { connection in
                try connection.run(Self.sqliteInsert, id, rider, driver, state.rawValue, 1, state.isActive, record, at)
                try connection.run(
                    "INSERT INTO trip_events (trip_id, version, intent, actor, state, at) VALUES (?, 1, 'request', ?, ?, ?)",
                    id, "rider:\(rider)", state.rawValue, at)
            }
        }
        try await database.close()
        return path
    }

    @Test func aSQLiteFileWithDuplicatesIsPartedByLegalChanges() async throws {
        let path = try await Self.oldSQLiteFile(Self.duplicates)
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let stores = try await SQLiteTripStores.open(path: path)
        try await Self.expectParted(stores.trips)
    }

    @Test func aSQLiteFileWithARiderOnTwoRidesIsNotOpenedAndNamesThem() async throws {
        let path = try await Self.oldSQLiteFile(
            Self.duplicates + [("g1", "r-8", .onTrip, "d-8", 1), ("g2", "r-8", .onTrip, "d-10", 2)])
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            _ = try await SQLiteTripStores.open(path: path)
            Issue.record("a rider on two rides at once was migrated")
        } catch let error as ActiveTripMigrationError {
            #expect(error.description.contains("rider r-8: g1, g2"))
            #expect(error.description.contains("docs/DEPLOY.md"))
        }
        // Nothing changed: the file is still at the old schema, its duplicates as they were.
        let connection = try SQLiteConnection.inspecting(.file(path))
        defer { try? connection.close() }
        #expect(try connection.userVersion() == 3)
        #expect(
            try connection.firstRow("SELECT state FROM trips WHERE id = 'a1'")?.value(0, as: String.self) == "searching"
        )
    }

    /// A PostgreSQL schema at the step before, holding `trips` and their first audit lines.
    static func oldPostgresSchema(url: String, _ trips: [(String, String, TripState, String?, Double)]) async throws
        -> String
    {
        let schema = "hail_old_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let pool = try await PostgresPool.connect(
            url: url, schema: schema, size: 1, migrations: Array(PostgresTripStores.migrations.prefix(3)))
        defer { pool.close() }
        for (id, rider, state, driver, requested) in trips {
            let record = try HailJSON.encode(Self.record(id, rider: rider, state: state, driver: driver))
            let at = epoch.timeIntervalSince1970 + requested
            try await pool.run { connection in
                try connection.query(
                    """
                    INSERT INTO trips (id, rider_id, driver_id, state, version, active, record, updated_at)
                    VALUES ($1, $2, $3, $4, 1, $5, $6, $7)
                    """, [id, rider, driver, state.rawValue, state.isActive, record, at])
                try connection.query(
                    "INSERT INTO trip_events (trip_id, version, intent, actor, state, at) VALUES ($1, 1, 'request', $2, $3, $4)",
                    [id, "rider:\(rider)", state.rawValue, at])
            }
        }
        return schema
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["HAIL_POSTGRES_URL"] != nil, "run scripts/services.sh"))
    func aPostgresSchemaWithDuplicatesIsPartedByLegalChanges() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["HAIL_POSTGRES_URL"])
        let schema = try await Self.oldPostgresSchema(url: url, Self.duplicates)
        do {
            let stores = try await PostgresTripStores.open(url: url, schema: schema, connections: 1)
            defer { stores.close() }
            try await Self.expectParted(stores.trips)
        } catch {
            await Self.dropSchema(url: url, schema: schema)
            throw error
        }
        await Self.dropSchema(url: url, schema: schema)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["HAIL_POSTGRES_URL"] != nil, "run scripts/services.sh"))
    func aPostgresSchemaWithADriverOnTwoRidesIsNotMigratedAndNamesThem() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["HAIL_POSTGRES_URL"])
        let schema = try await Self.oldPostgresSchema(
            url: url, Self.duplicates + [("g1", "r-8", .onTrip, "d-8", 1), ("g2", "r-9", .onTrip, "d-8", 2)])
        do {
            _ = try await PostgresTripStores.open(url: url, schema: schema, connections: 1)
            Issue.record("a driver on two rides at once was migrated")
        } catch {
            #expect("\(error)".contains("driver d-8: g1, g2"))
            #expect("\(error)".contains("docs/DEPLOY.md"))
        }
        let pool = try await PostgresPool.connect(url: url, schema: schema, size: 1, migrations: [])
        let (version, state) = try await pool.run { connection in
            (
                try connection.query("SELECT MAX(version) FROM schema_migrations").first?.int(0),
                try connection.query("SELECT state FROM trips WHERE id = 'a1'").first?.string(0)
            )
        }
        pool.close()
        #expect(version == 3)
        #expect(state == "searching")
        await Self.dropSchema(url: url, schema: schema)
    }
}
