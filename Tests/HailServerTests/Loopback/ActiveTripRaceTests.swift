import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

/// "One active trip per rider and per driver", raced over real sockets on both shapes: the embedded server on
/// SQLite, and two scaled nodes on one PostgreSQL and one Redis. Each race asserts who won and what the database
/// holds afterwards, never how long anything took.
@Suite("One active trip per rider and per driver, raced", .serialized)
struct ActiveTripRaceTests {
    static func withCluster(_ backend: Backend, _ body: (TripCluster) async throws -> Void) async throws {
        let cluster = try await TripCluster.start(backend)
        do {
            try await body(cluster)
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    static func name(_ prefix: String) -> String { prefix + "-" + UUID().uuidString.prefix(8).lowercased() }

    /// Every call at once, its answers in the calls' order.
    static func race(_ calls: [@Sendable () async -> APIResponse]) async -> [APIResponse] {
        await withTaskGroup(of: (Int, APIResponse).self) { group in
            for (index, call) in calls.enumerated() { group.addTask { (index, await call()) } }
            var answers: [Int: APIResponse] = [:]
            for await (index, answer) in group { answers[index] = answer }
            return calls.indices.map { answers[$0] ?? APIResponse(status: -1) }
        }
    }

    @Test(arguments: Backend.allCases) func fiftyRequestsFromOneRiderMakeOneTrip(backend: Backend) async throws {
        try await Self.withCluster(backend) { cluster in
            let rider = Self.name("rider")
            let token = cluster.token(.rider, rider)
            let keys = (0..<50).map { _ in UUID().uuidString }
            let answers = await Self.race(
                keys.enumerated().map { index, key in
                    {
                        await cluster.call(
                            index, "POST", "/v1/trips", token: token, body: TripCluster.tripRequest, key: key)
                    }
                })

            let created = answers.filter { $0.status == 201 }
            try #require(created.count == 1, "statuses: \(answers.map(\.status))")
            let trip = try HailJSON.decode(Trip.self, from: created[0].body)
            let refused = answers.filter { $0.status == 409 }
            #expect(refused.count == 49)
            #expect(
                refused.filter { $0.apiError?.code == .invalidState && $0.apiError?.activeTripID == trip.id }.count
                    == 49)
            let active = try await cluster.trips.activeRecords().filter { $0.riderID == rider }
            #expect(active.map(\.trip.id) == [trip.id])
            #expect(try await cluster.auditedStates(trip.id) == [.searching])

            // A refused key stored nothing: sent again while the trip is active it is refused again, and once the
            // trip has ended it creates the next trip, whose answer it then replays.
            let refusedKey = keys[try #require(answers.firstIndex { $0.status == 409 })]
            let again = await cluster.call(
                1, "POST", "/v1/trips", token: token, body: TripCluster.tripRequest, key: refusedKey)
            #expect(again.status == 409)
            #expect(again.apiError?.activeTripID == trip.id)
            #expect(await cluster.cancel(trip.id, rider: rider).status == 200)
            let next = await cluster.call(
                1, "POST", "/v1/trips", token: token, body: TripCluster.tripRequest, key: refusedKey)
            #expect(next.status == 201)
            let nextTrip = try HailJSON.decode(Trip.self, from: next.body)
            #expect(nextTrip.id != trip.id)
            let replay = await cluster.call(
                0, "POST", "/v1/trips", token: token, body: TripCluster.tripRequest, key: refusedKey)
            #expect(replay.status == 201)
            #expect(replay.body == next.body)
            #expect(
                try await cluster.trips.activeRecords().filter { $0.riderID == rider }.map(\.trip.id) == [nextTrip.id])
        }
    }

    @Test(arguments: Backend.allCases) func oneKeySentTwentyTimesAtOnceIsOneTripAndOneAnswer(backend: Backend)
        async throws
    {
        try await Self.withCluster(backend) { cluster in
            let rider = Self.name("rider")
            let token = cluster.token(.rider, rider)
            let key = UUID().uuidString
            let answers = await Self.race(
                (0..<20).map { index in
                    {
                        await cluster.call(
                            index, "POST", "/v1/trips", token: token, body: TripCluster.tripRequest, key: key)
                    }
                })
            // A retry racing its first attempt is that attempt's answer, never a 409 about its own trip.
            #expect(answers.map(\.status) == Array(repeating: 201, count: 20))
            #expect(Set(answers.map(\.body)).count == 1)
            let active = try await cluster.trips.activeRecords().filter { $0.riderID == rider }
            #expect(active.count == 1)
        }
    }

    @Test(arguments: Backend.allCases) func aBusyDriverAcceptingAnotherOfferIsRefusedNamingTheirTrip(
        backend: Backend
    ) async throws {
        try await Self.withCluster(backend) { cluster in
            let driver = Self.name("driver")
            let held = try await cluster.trip(rider: Self.name("rider"), driver: driver, at: .driverAssigned)
            let other = try await cluster.requestTrip(rider: Self.name("rider"))
            // A node whose view of the driver lacks their trip offers them another one.
            try await cluster.offer(other.id, to: driver)
            let accept = await cluster.accept(other.id, driver: driver, via: 1)
            #expect(accept.status == 409)
            #expect(accept.apiError?.code == .invalidState)
            #expect(accept.apiError?.activeTripID == held.id)
            // Nothing of the refused accept was written: the other trip is still searching at version 1.
            let after = try #require(try await cluster.trips.record(id: other.id))
            #expect(after.trip.state == .searching)
            #expect(after.trip.version == 1)
            #expect(after.driverID == nil)
            #expect(try await cluster.auditedStates(other.id) == [.searching])
            #expect(try await cluster.trips.activeRecord(driverID: driver)?.trip.id == held.id)
        }
    }

    @Test(arguments: Backend.allCases) func aDriversRacedAcceptsOfTwoTripsGiveThemOne(backend: Backend) async throws {
        try await Self.withCluster(backend) { cluster in
            for _ in 0..<5 {
                let driverID = Self.name("driver")
                let first = try await cluster.requestTrip(rider: Self.name("rider"))
                let second = try await cluster.requestTrip(rider: Self.name("rider"))
                let card = await cluster.nodes[0].services.directory.card(for: driverID)
                // Past the offer store (one offer per driver), the accepts meet in the trip store: each on its node.
                let outcomes = await withTaskGroup(of: (String, Result<Int, APIError>).self) { group in
                    for (index, trip) in [first, second].enumerated() {
                        let authority = cluster.node(index).services.authority
                        group.addTask {
                            do throws(APIError) {
                                let outcome = try await authority.apply(
                                    .offerAccepted(card, etaSeconds: nil), tripID: trip.id, by: .driver(driverID))
                                return (trip.id, .success(outcome.status))
                            } catch {
                                return (trip.id, .failure(error))
                            }
                        }
                    }
                    var all: [String: Result<Int, APIError>] = [:]
                    for await (id, result) in group { all[id] = result }
                    return all
                }
                let winners = outcomes.filter { if case .success(200) = $0.value { true } else { false } }.map(\.key)
                try #require(winners.count == 1, "outcomes: \(outcomes)")
                let winner = winners[0]
                let loser = winner == first.id ? second.id : first.id
                guard case .failure(let refusal)? = outcomes[loser] else {
                    Issue.record("the losing accept was not refused: \(String(describing: outcomes[loser]))")
                    continue
                }
                #expect(refusal.httpStatus == 409)
                #expect(refusal.activeTripID == winner)
                #expect(try await cluster.trips.activeRecord(driverID: driverID)?.trip.id == winner)
                #expect(try await cluster.auditedStates(winner) == [.searching, .driverAssigned])
                #expect(try await cluster.auditedStates(loser) == [.searching])
            }
        }
    }

    @Test(arguments: Backend.allCases) func aRiderCancelRacingTheAcceptEndsTheTripCancelled(backend: Backend)
        async throws
    {
        try await Self.withCluster(backend) { cluster in
            for _ in 0..<5 {
                let rider = Self.name("rider")
                let driver = Self.name("driver")
                let trip = try await cluster.requestTrip(rider: rider)
                try await cluster.offer(trip.id, to: driver)
                let answers = await Self.race([
                    { await cluster.cancel(trip.id, rider: rider, via: 0) },
                    { await cluster.accept(trip.id, driver: driver, via: 1) },
                ])
                let (cancel, accept) = (answers[0], answers[1])
                // The rider's cancel always stands: before the accept it wins alone, after it the rider cancels the
                // assigned trip (allowed until it starts). The accept wins only when it came first.
                #expect(cancel.status == 200)
                let states = try await cluster.auditedStates(trip.id)
                if accept.status == 200 {
                    #expect(states == [.searching, .driverAssigned, .cancelled])
                } else {
                    #expect(accept.status == 409)
                    #expect(states == [.searching, .cancelled])
                }
                #expect(try await cluster.trips.record(id: trip.id)?.trip.state == .cancelled)
                #expect(try await cluster.trips.activeRecord(driverID: driver) == nil)
                #expect(try await cluster.trips.activeRecord(riderID: rider) == nil)
            }
        }
    }

    @Test(arguments: Backend.allCases) func startingRacingARiderCancelAtThePickupHasOneWinner(backend: Backend)
        async throws
    {
        try await Self.withCluster(backend) { cluster in
            for _ in 0..<5 {
                let rider = Self.name("rider")
                let driver = Self.name("driver")
                let trip = try await cluster.trip(rider: rider, driver: driver, at: .driverArrived)
                let answers = await Self.race([
                    { await cluster.cancel(trip.id, rider: rider, via: 0) },
                    { await cluster.event(.started, trip.id, driver: driver, via: 1) },
                ])
                let (cancel, started) = (answers[0], answers[1])
                // A trip under way cannot be cancelled by its rider, and a cancelled one cannot start.
                #expect([cancel.status, started.status].sorted() == [200, 409])
                let states = try await cluster.auditedStates(trip.id)
                if started.status == 200 {
                    #expect(states == [.searching, .driverAssigned, .driverArrived, .onTrip])
                    #expect(cancel.apiError?.code == .invalidState)
                } else {
                    #expect(states == [.searching, .driverAssigned, .driverArrived, .cancelled])
                    #expect(started.apiError?.code == .invalidState)
                }
            }
        }
    }

    @Test(arguments: Backend.allCases) func endingRacingACancelOnTheWayIsTheEnd(backend: Backend) async throws {
        try await Self.withCluster(backend) { cluster in
            for _ in 0..<3 {
                let rider = Self.name("rider")
                let driver = Self.name("driver")
                let trip = try await cluster.trip(rider: rider, driver: driver, at: .onTrip)
                let answers = await Self.race([
                    { await cluster.cancel(trip.id, rider: rider, via: 0) },
                    { await cluster.event(.ended, trip.id, driver: driver, via: 1) },
                    {
                        await cluster.call(
                            1, "POST", "/v1/trips/\(trip.id)/cancel", token: cluster.token(.driver, driver),
                            body: Data("{}".utf8), key: UUID().uuidString)
                    },
                ])
                // Under way, neither the rider nor the driver can cancel: the end is the one change.
                #expect(answers.map(\.status) == [409, 200, 409])
                #expect(
                    try await cluster.auditedStates(trip.id) == [
                        .searching, .driverAssigned, .driverArrived, .onTrip, .completed,
                    ])
                #expect(try await cluster.trips.activeRecord(driverID: driver) == nil)
                #expect(try await cluster.trips.activeRecord(riderID: rider) == nil)
            }
        }
    }
}
