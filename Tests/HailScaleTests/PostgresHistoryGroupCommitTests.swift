import Dispatch
import Foundation
import HailCore
import HailServer
import HailTesting
import Synchronization
import Testing

@testable import HailScale

@Suite(
    "History group commit on a real PostgreSQL",
    .enabled(if: ScaleServices.hasPostgres, "start PostgreSQL with scripts/services.sh"))
struct PostgresHistoryGroupCommitTests {
    /// The point `index` seconds into a trip, its position derived from the index so each one is distinct; every
    /// fourth has no heading and no speed (NULL elements in the statement's arrays).
    static func point(_ index: Int) -> HistoryPoint {
        HistoryPoint(
            coordinate: Coordinate(lat: 43.73 + Double(index) / 10_000, lng: 7.42),
            t: Date(timeIntervalSince1970: 1_796_220_000.25 + Double(index)),
            receivedAt: Date(timeIntervalSince1970: 1_796_220_000.5 + Double(index)), backlog: index % 3 == 0,
            heading: index % 4 == 0 ? nil : Double(index % 360) + 0.25, speed: index % 4 == 0 ? nil : 13.5)
    }

    /// The counts a group commit should report.
    static func statistics(committedGroups: Int, committedAppends: Int, failedGroups: Int = 0, failedAppends: Int = 0)
        -> HistoryGroupCommit.Statistics
    {
        var statistics = HistoryGroupCommit.Statistics()
        statistics.committedGroups = committedGroups
        statistics.committedAppends = committedAppends
        statistics.failedGroups = failedGroups
        statistics.failedAppends = failedAppends
        return statistics
    }

    /// Stores on one connection whose thread is held by a job until `release` is called, so every append made
    /// before then waits for the same group.
    static func heldStores(url: String, schema: String) async throws -> (PostgresTripStores, @Sendable () -> Void) {
        let stores = try await PostgresTripStores.open(url: url, schema: schema, connections: 1)
        let gate = DispatchSemaphore(value: 0)
        let refusal = stores.pool.submit { _ in gate.wait() }
        #expect(refusal == nil)
        return (stores, { gate.signal() })
    }

    @Test func twoHundredAppendsFromEightThreadsCommitAsOneStatementAfterWhichEveryOneIsAcknowledged() async throws {
        try await ScaleServices.withFreshSchema { url, schema in
            let (stores, release) = try await Self.heldStores(url: url, schema: schema)
            defer { stores.close() }
            let history = stores.history
            let completions = Completions(expected: 201)
            await withCheckedContinuation { (appended: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    DispatchQueue.concurrentPerform(iterations: 8) { thread in
                        for index in stride(from: thread, to: 200, by: 8) {
                            history.append(
                                tripID: "trip-\(index % 5)", points: [Self.point(index)],
                                whenCommitted: completions.record)
                        }
                    }
                    // A resend of a point already in the same group: ignored, and still acknowledged.
                    history.append(tripID: "trip-0", points: [Self.point(0)], whenCommitted: completions.record)
                    appended.resume()
                }
            }
            #expect(completions.count == 0)
            release()
            let results = await completions.all()
            #expect(results.allSatisfy { (try? $0.get()) != nil })
            #expect(history.statistics == Self.statistics(committedGroups: 1, committedAppends: 201))
            let tripZero = try await history.history(tripID: "trip-0")
            #expect(tripZero == stride(from: 0, to: 200, by: 5).map(Self.point))
            let rows = try await stores.pool.run { try $0.query("SELECT count(*) FROM location_history")[0].int(0) }
            #expect(rows == 200)
        }
    }

    @Test func anAppendWhoseDataPostgresRefusesFailsAloneAndTheRestOfItsGroupCommits() async throws {
        try await ScaleServices.withFreshSchema { url, schema in
            let (stores, release) = try await Self.heldStores(url: url, schema: schema)
            defer { stores.close() }
            let history = stores.history
            let good = Completions(expected: 2)
            let bad = Completions(expected: 1)
            history.append(tripID: "trip-a", points: [Self.point(0), Self.point(1)], whenCommitted: good.record)
            // PostgreSQL text cannot hold a NUL byte, so this batch's statement fails on its data.
            history.append(tripID: "trip-\u{0}b", points: [Self.point(2)], whenCommitted: bad.record)
            history.append(tripID: "trip-c", points: [Self.point(3)], whenCommitted: good.record)
            release()
            #expect(await good.all().allSatisfy { (try? $0.get()) != nil })
            let refused = await bad.all()
            #expect(refused.count == 1)
            #expect((try? refused[0].get()) == nil)
            #expect(try await history.history(tripID: "trip-a") == [Self.point(0), Self.point(1)])
            #expect(try await history.history(tripID: "trip-c") == [Self.point(3)])
            #expect(history.statistics == Self.statistics(committedGroups: 1, committedAppends: 2, failedAppends: 1))
        }
    }

    @Test func anAppendAfterThePoolClosedFailsWithClosedAtOnce() async throws {
        try await ScaleServices.withFreshSchema { url, schema in
            let stores = try await PostgresTripStores.open(url: url, schema: schema, connections: 1)
            stores.close()
            let completions = Completions(expected: 1)
            stores.history.append(tripID: "trip-a", points: [Self.point(0)], whenCommitted: completions.record)
            #expect(completions.count == 1)
            let results = await completions.all()
            #expect(throws: PostgresError.closed) { try results[0].get() }
        }
    }

    @Test func stringsWithQuotesBackslashesCommasAndBracesRoundTripThroughATextArray() async throws {
        try await ScaleServices.withFreshSchema { url, schema in
            let stores = try await PostgresTripStores.open(url: url, schema: schema, connections: 1)
            defer { stores.close() }
            let strings = ["plain", "with \"quotes\"", "back\\slash", "a,b", "{braces}", "NULL", " spaced ", "", "é🚕"]
            #expect(
                ["a", "b\"c"].postgresText == #"{"a","b\"c"}"#)
            let back = try await stores.pool.run { connection in
                try connection.query(
                    "SELECT x FROM unnest($1::text[]) WITH ORDINALITY AS u(x, n) ORDER BY n", [strings]
                )
                .map { try $0.string(0) }
            }
            #expect(back == strings)
            let numbers: [Double?] = [1.5, -0.000_001_25, nil, 43.739_612_345_678_9]
            let numbersBack = try await stores.pool.run { connection in
                try connection.query(
                    "SELECT coalesce(x, -1) FROM unnest($1::float8[]) WITH ORDINALITY AS u(x, n) ORDER BY n", [numbers]
                ).map { try $0.double(0) }
            }
            #expect(numbersBack == [1.5, -0.000_001_25, -1, 43.739_612_345_678_9])
        }
    }
}
