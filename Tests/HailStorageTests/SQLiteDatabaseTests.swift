import Dispatch
import HailStorage
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An identifier of the calling thread that can cross concurrency domains.
private func currentThreadID() -> UInt {
    #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
    #else
        UInt(pthread_self())
    #endif
}

@Suite struct SQLiteDatabaseTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    private func openDatabase() async throws -> SQLiteDatabase {
        try await SQLiteDatabase.open(
            .file(directory.database()),
            migrations: ["CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)"])
    }

    @Test func workRunsOnTheDatabasesOwnThreads() async throws {
        let database = try await openDatabase()
        let caller = currentThreadID()
        var writers = Set<UInt>()
        var readers = Set<UInt>()
        for index in 0..<20 {
            writers.insert(
                try await database.write { connection in
                    try connection.run("INSERT INTO item (name) VALUES (?)", "n\(index)")
                    return currentThreadID()
                })
            writers.insert(try await database.withConnection { _ in currentThreadID() })
            readers.insert(try await database.read { _ in currentThreadID() })
        }
        // One thread for every write, another for every read, and neither is a thread of the caller.
        #expect(writers.count == 1)
        #expect(readers.count == 1)
        #expect(writers.isDisjoint(with: readers))
        #expect(!writers.union(readers).contains(caller))
        #expect(!writers.union(readers).contains(currentThreadID()))

        // A second database gets threads of its own; without a separate reader, reads share the writer's.
        let other = try await SQLiteDatabase.open(.file(directory.database("other.sqlite")), separateReader: false)
        let otherReads = try await other.read { _ in currentThreadID() }
        let otherWrites = try await other.write { _ in currentThreadID() }
        #expect(otherReads == otherWrites)
        #expect(!writers.union(readers).contains(otherReads))
        #expect(otherReads != currentThreadID())
    }

    @Test func aWriteCommitsWhileAReadHoldsItsSnapshot() async throws {
        let database = try await openDatabase()
        let count: @Sendable (SQLiteConnection) throws -> Int = { connection in
            try connection.firstRow("SELECT count(*) FROM item")!.value(0, as: Int.self)
        }
        let (started, reportStart) = AsyncStream<Void>.makeStream()
        let writeDone = DispatchSemaphore(value: 0)
        // The read blocks its own thread (not a cooperative one) until the write has returned.
        async let snapshot = database.read { connection in
            let before = try count(connection)
            reportStart.yield()
            // Bounded so that a regression (writes queued behind reads) fails instead of hanging the suite.
            let signalled = writeDone.wait(timeout: .now() + .seconds(30)) == .success
            return (before, try count(connection), signalled)
        }
        var iterator = started.makeAsyncIterator()
        await iterator.next()
        try await database.write { try $0.run("INSERT INTO item (name) VALUES ('during the read')") }
        writeDone.signal()
        let (before, after, signalled) = try await snapshot
        #expect(signalled)
        #expect(before == 0)
        #expect(after == 0)  // same transaction, same snapshot
        #expect(try await database.read(count) == 1)  // a read that begins after the write sees it
    }

    @Test func inMemoryDatabaseServesReadsFromItsOneConnection() async throws {
        let database = try await SQLiteDatabase.open(.inMemory, migrations: ["CREATE TABLE t (x TEXT)"])
        try await database.write { try $0.run("INSERT INTO t VALUES ('kept')") }
        let values = try await database.read { connection in
            try connection.query("SELECT x FROM t").map { try $0.value(0, as: String.self) }
        }
        #expect(values == ["kept"])
    }

    @Test func manyConcurrentCallsAllCompleteCorrectly() async throws {
        let database = try await openDatabase()
        let results = try await withThrowingTaskGroup(of: (Int, Int64).self) { group in
            for index in 0..<500 {
                group.addTask {
                    let id = try await database.write { connection in
                        try connection.run("INSERT INTO item (name) VALUES (?)", "item-\(index)")
                        return connection.lastInsertRowID
                    }
                    return (index, id)
                }
            }
            var results: [Int: Int64] = [:]
            for try await (index, id) in group { results[index] = id }
            return results
        }
        #expect(results.count == 500)
        #expect(Set(results.values).count == 500)
        let stored = try await database.read { connection in
            try connection.query("SELECT id, name FROM item").map {
                (try $0.value("name", as: String.self), try $0.value("id", as: Int64.self))
            }
        }
        #expect(stored.count == 500)
        for (name, id) in stored {
            let index = Int(name.dropFirst("item-".count))!
            #expect(results[index] == id)
        }

        // Reads interleaved with writes each see whole transactions.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        try await database.write { connection in
                            try connection.run("INSERT INTO item (name) VALUES (?)", "pair-\(index)-a")
                            try connection.run("INSERT INTO item (name) VALUES (?)", "pair-\(index)-b")
                        }
                    } else {
                        let count = try await database.read { connection in
                            try connection.firstRow("SELECT count(*) FROM item WHERE name LIKE 'pair-%'")!
                                .value(0, as: Int.self)
                        }
                        #expect(count.isMultiple(of: 2))
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func writeRollsBackOnThrowAndReportsUniqueViolations() async throws {
        let database = try await openDatabase()
        try await database.write { try $0.run("INSERT INTO item (name) VALUES ('taken')") }
        let error = try await #require(throws: SQLiteError.self) {
            try await database.write { connection in
                try connection.run("INSERT INTO item (name) VALUES ('fresh')")
                try connection.run("INSERT INTO item (name) VALUES ('taken')")
            }
        }
        #expect(error.isUniqueViolation)
        let names = try await database.read { connection in
            try connection.query("SELECT name FROM item").map { try $0.value(0, as: String.self) }
        }
        #expect(names == ["taken"])
    }

    @Test func readRefusesWrites() async throws {
        let database = try await openDatabase()
        let error = try await #require(throws: SQLiteError.self) {
            try await database.read { try $0.run("INSERT INTO item (name) VALUES ('x')") }
        }
        #expect(error.kind == .writeInReadScope)
    }

    @Test func openingRunsMigrationsAndRefusesNewerSchemas() async throws {
        try await openDatabase().close()
        let error = await #expect(throws: SQLiteError.self) {
            try await SQLiteDatabase.open(.file(directory.database()))
        }
        #expect(error?.kind == .schemaTooNew)
    }

    @Test func closedDatabaseThrows() async throws {
        let database = try await openDatabase()
        try await database.close()
        let error = try await #require(throws: SQLiteError.self) { try await database.read { _ in 1 } }
        #expect(error.kind == .closed)
    }

    @Test func releasedDatabaseLeavesItsDataReadable() async throws {
        weak var released: SQLiteDatabase?
        do {
            let database = try await openDatabase()
            try await database.write { try $0.run("INSERT INTO item (name) VALUES ('persisted')") }
            released = database
        }
        // Nothing else holds the actor (its thread holds only the executor), so it is gone at once and its
        // connection is closing on its thread.
        #expect(released == nil)
        let reopened = try await openDatabase()
        let names = try await reopened.read { connection in
            try connection.query("SELECT name FROM item").map { try $0.value(0, as: String.self) }
        }
        #expect(names == ["persisted"])
    }
}
