import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

/// The reconciler repairing what a commit's after-work left wrong, on a manual clock with backends that refuse
/// on cue: a driver's trip record, a change never published, a search's outcome.
@Suite("Reconciler on a manual clock")
struct ReconcilerTests {
    static let near = Coordinate(lat: 43.7400, lng: 7.4280)

    /// Sends `event` for trip `id` as its driver; the status.
    static func event(_ h: ServerHarness, _ event: String, trip id: String = "trip-1", driver: String = "d-1") async
        -> Int
    {
        await h.call(
            "POST", "/v1/trips/\(id)/events", token: h.token(.driver, driver),
            json: #"{"event": "\#(event)", "idempotencyKey": "\#(UUID().uuidString)"}"#
        ).status
    }

    static func request(_ h: ServerHarness, rider: String) async -> APIResponse {
        await h.call(
            "POST", "/v1/trips", token: h.token(.rider, rider), json: ServerHarness.requestBody(),
            key: UUID().uuidString)
    }

    @Test func aDriverWhoseTripEndedWhileTheirRecordCouldNotBeWrittenIsOfferedTheNextTripAfterOnePass() async throws {
        let ingest = FlakyIngestStore()
        let h = await ServerHarness(ingestState: ingest)
        await h.onlineDriver("d-1", at: Self.near)
        #expect(await Self.request(h, rider: "r-1").status == 201)
        #expect(
            await h.call("POST", "/v1/trips/trip-1/accept", token: h.token(.driver, "d-1"), key: UUID().uuidString)
                .status == 200)
        #expect(await Self.event(h, "arrived") == 200)
        #expect(await Self.event(h, "started") == 200)

        // The trip ends while the driver's record cannot be written: the answer is still 200 completed.
        ingest.failing.withLock { $0 = true }
        h.advance(seconds: 60)
        let ended = await h.call(
            "POST", "/v1/trips/trip-1/events", token: h.token(.driver, "d-1"),
            json: #"{"event": "ended", "idempotencyKey": "\#(UUID().uuidString)"}"#)
        #expect(ended.status == 200)
        #expect(try h.trip(from: ended).state == .completed)
        #expect(h.services.fleet.hasSuspects)
        ingest.failing.withLock { $0 = false }
        #expect(
            ingest.base.tripMarks(driverIDs: ["d-1"]) == [
                "d-1": DriverTripMark(tripID: "trip-1", version: 4, active: true)
            ])

        // Left alone, the driver is never offered the next trip.
        await h.sendLocation("d-1", seq: 2, at: Self.near)
        #expect(await Self.request(h, rider: "r-2").status == 201)
        #expect(await h.services.dispatcher.currentOffer(for: "d-1") == nil)

        // The failed write asked for a pass at the next tick: it repairs the record from the trip store.
        await h.services.reconciler.tick()
        #expect(!h.services.fleet.hasSuspects)
        #expect(
            ingest.base.tripMarks(driverIDs: ["d-1"]) == [
                "d-1": DriverTripMark(tripID: "trip-1", version: 5, active: false)
            ])
        await h.services.dispatcher.evaluate()
        #expect(await h.services.dispatcher.currentOffer(for: "d-1")?.tripID == "trip-2")
        #expect(h.services.metrics.registry.value("hail_reconciler_repairs_total", labels: ["kind": "driverTrip"]) == 1)
        // A second pass finds nothing more to do.
        let again = await h.services.reconciler.reconcile()
        #expect(again == Reconciler.Pass(driversRepaired: 0, redelivered: 0, succeeded: true))
    }

    @Test func aPassThatCannotReachTheDriverRecordsFailsIsRetriedAndTheFirstSuccessCountsAsAHeal() async throws {
        let ingest = FlakyIngestStore()
        let h = await ServerHarness(ingestState: ingest)
        await h.onlineDriver("d-1", at: Self.near)
        #expect(await Self.request(h, rider: "r-1").status == 201)
        ingest.failing.withLock { $0 = true }
        // The accept commits; the record of it does not reach the driver's state.
        #expect(
            await h.call("POST", "/v1/trips/trip-1/accept", token: h.token(.driver, "d-1"), key: UUID().uuidString)
                .status == 200)
        await h.services.reconciler.tick()
        #expect(h.services.metrics.registry.value("hail_reconciler_passes_total", labels: ["result": "failed"]) == 1)
        #expect(h.services.fleet.hasSuspects)
        ingest.failing.withLock { $0 = false }
        await h.services.reconciler.tick()
        #expect(
            ingest.base.tripMarks(driverIDs: ["d-1"]) == [
                "d-1": DriverTripMark(tripID: "trip-1", version: 2, active: true)
            ])
        #expect(ingest.base.state(driverID: "d-1")?.trip?.trip.state == .driverAssigned)
        #expect(h.services.metrics.registry.value("hail_reconciler_heals_total") == 1)
        #expect(h.services.metrics.registry.value("hail_reconciler_passes_total", labels: ["result": "ok"]) == 1)
    }

    @Test func aChangeWhosePublishFailedIsPublishedAgain15SecondsAfterItsCommitAndOnlyOnce() async throws {
        let bus = FlakyBus()
        let h = await ServerHarness(bus: bus)
        #expect(await Self.request(h, rider: "r-1").status == 201)
        var watcher = await TopicReader(bus, .trip("trip-1"))
        bus.refusing.withLock { $0 = true }
        let cancelled = await h.call(
            "POST", "/v1/trips/trip-1/cancel", token: h.token(.rider, "r-1"), key: UUID().uuidString)
        #expect(cancelled.status == 200)
        bus.refusing.withLock { $0 = false }
        // The request's own publish went through and is marked; the cancel's is owed.
        let early = await h.services.reconciler.reconcile()
        #expect(early == Reconciler.Pass(driversRepaired: 0, redelivered: 0, succeeded: true))
        h.advance(seconds: 14.999)
        #expect(await h.services.reconciler.reconcile().redelivered == 0)
        h.advance(seconds: 0.002)
        #expect(await h.services.reconciler.reconcile().redelivered == 1)
        let frame = try #require(await watcher.nextType())
        #expect(frame.type == "tripUpdated")
        guard
            case .tripUpdated(let trip) = try HailJSON.decode(
                RiderServerFrame.self, from: Data(frame.message.text.utf8))
        else {
            Issue.record("not a trip update")
            return
        }
        #expect(trip.state == .cancelled)
        #expect(trip.version == 2)
        #expect(frame.message.endsStream)
        h.advance(seconds: 60)
        #expect(await h.services.reconciler.reconcile().redelivered == 0)
        #expect(
            h.services.metrics.registry.value("hail_reconciler_repairs_total", labels: ["kind": "redelivered"]) == 1)
    }

    @Test func aSearchWhoseGiveUpCannotBeWrittenKeepsSearchingAndGivesUpOnceItCan() async throws {
        let trips = FlakyTripStore()
        let h = await ServerHarness(trips: trips)
        #expect(await Self.request(h, rider: "r-1").status == 201)
        #expect(await h.services.dispatcher.searchingTripIDs == ["trip-1"])
        trips.failing.withLock { $0 = true }
        h.advance(seconds: 60)
        await h.services.dispatcher.evaluate()
        // The outcome is not committed: the search (and its lease) stay, so no trip is left searching unowned.
        #expect(await h.services.dispatcher.searchingTripIDs == ["trip-1"])
        #expect(try await trips.record(id: "trip-1")?.trip.state == .searching)
        h.advance(seconds: 1)
        await h.services.dispatcher.evaluate()
        #expect(await h.services.dispatcher.searchingTripIDs == ["trip-1"])
        trips.failing.withLock { $0 = false }
        h.advance(seconds: 1)
        await h.services.dispatcher.evaluate()
        #expect(await h.services.dispatcher.searchingTripIDs == [])
        let record = try #require(try await trips.record(id: "trip-1"))
        #expect(record.trip.state == .noDriversFound)
        #expect(record.trip.version == 2)
        #expect(try await trips.events(tripID: "trip-1").map(\.intent) == ["request", "searchTimedOut"])
    }

    @Test func anOfferThatLapsesIsWithdrawnOnTheDriversStream() async throws {
        let h = await ServerHarness()
        await h.onlineDriver("d-1", at: Self.near)
        var stream = await TopicReader(h.services.bus, .driver("d-1"))
        #expect(await Self.request(h, rider: "r-1").status == 201)
        #expect(await stream.nextType()?.type == "offer")
        h.advance(seconds: 15)
        await h.services.dispatcher.evaluate()
        let withdrawn = try #require(await stream.nextType())
        #expect(withdrawn.message.text == #"{"tripID":"trip-1","type":"offerWithdrawn"}"#)
    }

    @Test func theSQLiteStoreListsUnpublishedChangesOldestFirstAndNeverLowersAMark() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-\(UUID().uuidString).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let stores = try await SQLiteTripStores.open(path: path)
        for (index, id) in ["b", "a"].enumerated() {
            let trip = Trip(
                id: id, state: .searching, pickup: ServerHarness.pickup, dropoff: ServerHarness.dropoff,
                productID: .economy, version: 1)
            let at = ServerHarness.epoch + Double(index)
            let event = TripEventRecord(
                tripID: id, version: 1, intent: "request", actor: "rider:r-\(id)", state: .searching, at: at)
            // A rider each: one rider's second active trip is refused by the store.
            #expect(
                try await stores.trips.commit(
                    TripCommit(record: TripRecord(trip: trip, riderID: "r-\(id)"), expectedVersion: nil, event: event))
                    == .committed)
        }
        let before = ServerHarness.epoch + 10
        #expect(try await stores.trips.unpublished(committedBefore: before, limit: 10).map(\.trip.id) == ["b", "a"])
        #expect(
            try await stores.trips.unpublished(committedBefore: ServerHarness.epoch + 0.5, limit: 10).map(\.trip.id)
                == ["b"])
        #expect(try await stores.trips.unpublished(committedBefore: before, limit: 1).map(\.trip.id) == ["b"])
        try await stores.trips.markPublished(["b": 1])
        #expect(try await stores.trips.unpublished(committedBefore: before, limit: 10).map(\.trip.id) == ["a"])
        try await stores.trips.markPublished(["a": 1, "b": 0])
        #expect(try await stores.trips.unpublished(committedBefore: before, limit: 10).isEmpty)
    }
}
