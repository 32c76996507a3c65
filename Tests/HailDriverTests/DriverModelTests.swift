import Foundation
import HailAppDoubles
import HailCore
import HailDriver
import HailProtocol
import HailTestSupport
import HailTime
import Testing

@Suite("DriverModel on fakes and a manual clock")
@MainActor
struct DriverModelTests {
    let clock = ManualClock()
    let api: FakeDriverAPI
    let channel = ScriptedDriverChannel(serverTime: Fixture.origin)
    let source = ScriptedLocationSource()
    let store: MemoryOutboxStore
    let model: DriverModel

    init(
        active: Trip? = nil, saved: DriverSavedState? = nil, store: MemoryOutboxStore? = nil,
        backoff: Backoff = .standard
    ) {
        api = FakeDriverAPI(active: active)
        self.store = store ?? MemoryOutboxStore(saved)
        model = DriverModel(
            api: api, channel: channel, location: source, store: self.store,
            timeline: Timeline(clock: clock, origin: Fixture.origin), random: SplitMix64(seed: 1), backoff: backoff)
    }

    func online() async throws {
        await model.start()
        await model.goOnline()
        try await eventually(model, "stream up") { $0.link == .stream }
    }

    /// A dead zone: the stream drops and cannot reconnect, and HTTP gets nothing through either.
    func enterDeadZone() async throws {
        channel.refuse(true)
        await api.setUnreachable(true)
        await channel.disconnect()
        try await eventually(model, "stream lost") { $0.link != .stream }
    }

    /// One fix a second, 20 m apart northward from `start`, each yielded as the clock reaches its time; the times.
    @discardableResult
    func driveNorth(from start: Coordinate, fixes: Int) -> [Date] {
        (0..<fixes).map { index in
            clock.advance(by: .seconds(1))
            let time = Fixture.origin.addingTimeInterval(Double(index + 1))
            source.yield(
                LocationPoint(
                    lat: start.lat + Double(index) * 20 / 111_195, lng: start.lng, accuracy: 5, heading: 0, speed: 10,
                    t: time))
            return time
        }
    }

    /// Issue 14: the fare is priced on the history the server holds when "ended" lands, and the tap's last
    /// positions travel on the socket while "ended" goes over HTTP; they lost the race often enough to leave
    /// the trip's last 20-90 m uncharged. They go with "ended" too, so it need not wait for their ack.
    @Test func endedCarriesThePositionsNotYetAcknowledgedAndGoesAtOnce() async throws {
        let rig = DriverModelTests(active: Fixture.trip("t9", .onTrip, version: 4))
        try await rig.online()
        rig.channel.goSilent(true)
        let fix = LocationPoint(
            lat: Fixture.dropoff.lat, lng: Fixture.dropoff.lng, accuracy: 5, heading: 0, speed: 0, t: Fixture.origin)
        rig.source.yield(fix)
        try await eventually(rig.model, "fix taken") { $0.pipeline.filter.counts.accepted == 1 }
        await rig.model.tap(.ended)
        // No ack came for the fix's batch; the trip ends all the same, and the fare had the fix.
        try await eventually(rig.model, "ended") { $0.trip?.state == .completed }
        #expect(!rig.model.pipeline.batcher.inFlight.isEmpty)
        #expect(await rig.api.endedPaths == [[fix]])
    }

    /// Issue 14: the fix taken a moment before the tap reached the app after it, went live behind "ended" and missed
    /// the fare (a 1,431 m stalls trip charged 1,381 m). "ended" carries the fix of the tap itself, after the ones
    /// not yet acknowledged, and the rider's pin gets it too.
    @Test func endedCarriesTheFixOfTheTap() async throws {
        let rig = DriverModelTests(active: Fixture.trip("t9", .onTrip, version: 4))
        try await rig.online()
        rig.channel.goSilent(true)
        let approach = LocationPoint(
            lat: Fixture.dropoff.lat - 12 / 111_195, lng: Fixture.dropoff.lng, accuracy: 5, heading: 0, speed: 6,
            t: Fixture.origin)
        rig.source.yield(approach)
        try await eventually(rig.model, "fix taken") { $0.pipeline.filter.counts.accepted == 1 }
        rig.clock.advance(by: .seconds(2))
        let stop = LocationPoint(
            lat: Fixture.dropoff.lat, lng: Fixture.dropoff.lng, accuracy: 5, heading: 0, speed: 0,
            t: Fixture.origin.addingTimeInterval(2))
        rig.source.setCurrentFix(stop)
        await rig.model.tap(.ended)
        try await eventually(rig.model, "ended") { $0.trip?.state == .completed }
        #expect(await rig.api.endedPaths == [[approach, stop]])
        #expect(rig.model.pipeline.stats.freshFixes == 1)
        #expect(rig.channel.sent.last?.points == [stop])
    }

    /// Issue 14: after a dead zone at the drop-off, the fixes taken in it waited in the buffer while "ended", retried
    /// as the network came back, got through first: a 1,070 m chaos trip was charged 931 m, every run. Waiting for
    /// the buffer before "ended" (up to 5 s) did not save it. The fixes the server has not acknowledged now travel
    /// with "ended", fixed at the tap.
    @Test func endedAfterADeadZoneCarriesTheFixesTakenInIt() async throws {
        let rig = DriverModelTests(active: Fixture.trip("t9", .onTrip, version: 4))
        try await rig.online()
        try await rig.enterDeadZone()
        let taken = rig.driveNorth(from: Fixture.dropoff, fixes: 3)
        try await eventually(rig.model, "three fixes kept offline") {
            $0.link == .down && $0.pipeline.batcher.buffer.count == 3
        }
        // The driver taps "ended" in the dead zone; HTTP comes back before the stream, and the retry gets through.
        await rig.model.tap(.ended)
        await rig.api.setUnreachable(false)
        rig.model.networkMayBeBack()
        try await eventually(rig.model, "ended") { $0.trip?.state == .completed }
        let paths = await rig.api.endedPaths
        #expect(paths.count == 1)
        #expect(paths.first??.map(\.t) == taken)
    }

    /// Issue 14: an offline buffer flushed as the trip began reached the server after "started" and its fixes of the
    /// way to the pickup were charged (71 m of a 2,306 m stalls trip). Tapping "started" drops them, but the newest.
    @Test func startedDropsTheFixesTakenOnTheWayThatWaitOnThePhone() async throws {
        let rig = DriverModelTests(active: Fixture.trip("t9", .driverArrived, version: 3))
        try await rig.online()
        try await rig.enterDeadZone()
        rig.driveNorth(from: Fixture.pickup, fixes: 3)
        try await eventually(rig.model, "three fixes kept offline") { $0.pipeline.batcher.buffer.count == 3 }
        rig.clock.advance(by: .seconds(1))
        await rig.model.tap(.started)
        #expect(rig.model.pipeline.batcher.buffer.map(\.t) == [Fixture.origin.addingTimeInterval(3)])
    }

    /// A trip begun while the server's Redis was away: it could not read where the car stood, and the phone's fix of
    /// it was never acknowledged (fault suite, `redis-pause-30s`: 191 m charged of a 328 m trip). "ended" carries it.
    @Test func endedCarriesWhereTheCarStoodWhenTheServerNeverAcknowledgedIt() async throws {
        let rig = DriverModelTests(active: Fixture.trip("t9", .driverArrived, version: 3))
        try await rig.online()
        try await rig.enterDeadZone()
        let approach = rig.driveNorth(from: Fixture.pickup, fixes: 3)
        try await eventually(rig.model, "three fixes kept offline") { $0.pipeline.batcher.buffer.count == 3 }
        rig.clock.advance(by: .seconds(1))
        await rig.model.tap(.started)
        // Trip actions get through again; positions still do not.
        await rig.api.failLocations(true)
        await rig.api.setUnreachable(false)
        rig.model.networkMayBeBack()
        try await eventually(rig.model, "started") { $0.trip?.state == .onTrip }
        let onTrip = (5...6).map { second in
            rig.clock.advance(by: .seconds(1))
            let time = Fixture.origin.addingTimeInterval(Double(second))
            rig.source.yield(
                LocationPoint(
                    lat: Fixture.pickup.lat + Double(second) * 20 / 111_195, lng: Fixture.pickup.lng, accuracy: 5,
                    heading: 0, speed: 10, t: time))
            return time
        }
        try await eventually(rig.model, "two trip fixes kept") {
            $0.pipeline.batcher.snapshot.points.filter { $0.t >= Fixture.origin + 5 }.count == 2
        }
        rig.clock.advance(by: .seconds(1))
        let stop = LocationPoint(
            lat: Fixture.pickup.lat + 140 / 111_195, lng: Fixture.pickup.lng, accuracy: 5, heading: 0, speed: 0,
            t: Fixture.origin.addingTimeInterval(7))
        rig.source.setCurrentFix(stop)
        await rig.model.tap(.ended)
        rig.model.networkMayBeBack()
        try await eventually(rig.model, "ended") { $0.trip?.state == .completed }
        #expect(await rig.api.endedPaths.first??.map(\.t) == [approach[2]] + onTrip + [stop.t])
    }

    @Test func endedCarriesWhereTheCarStoodEvenWhenTheServerAcknowledgedIt() async throws {
        // The server acknowledged every fix of the way to the pickup, but the node that took "started" could not read
        // where the car stood (its Redis cut off): "ended" carries that fix again, for the fare to begin there.
        let rig = DriverModelTests(active: Fixture.trip("t9", .driverArrived, version: 3))
        try await rig.online()
        let approach = rig.driveNorth(from: Fixture.pickup, fixes: 3)
        try await eventually(rig.model, "the last two fixes held") { $0.pipeline.batcher.pending.count == 2 }
        rig.clock.advance(by: .seconds(5))
        try await eventually(rig.model, "the way to the pickup acknowledged") {
            $0.pipeline.batcher.snapshot.points.isEmpty && $0.pipeline.batcher.inFlight.isEmpty
        }
        rig.clock.advance(by: .seconds(1))
        await rig.model.tap(.started)
        try await eventually(rig.model, "started") { $0.trip?.state == .onTrip }
        rig.clock.advance(by: .seconds(1))
        let stop = LocationPoint(
            lat: Fixture.pickup.lat + 80 / 111_195, lng: Fixture.pickup.lng, accuracy: 5, heading: 0, speed: 0,
            t: Fixture.origin.addingTimeInterval(10))
        rig.source.setCurrentFix(stop)
        await rig.model.tap(.ended)
        try await eventually(rig.model, "ended") { $0.trip?.state == .completed }
        #expect(await rig.api.endedPaths.first??.map(\.t) == [approach[2], stop.t])
    }

    @Test func anOfferLapsesAtItsExpiry() async throws {
        try await online()
        #expect(model.screen.headline == .waitingForTrips)
        channel.push(
            .offer(TripOffer(trip: Fixture.trip("t1", .searching, version: 1), expiresAt: Fixture.origin + 15)))
        try await eventually(model, "offer") { $0.offer != nil }
        #expect(model.screen.headline == .newOffer)
        #expect(model.screen.offerExpiresAt == Fixture.origin + 15)
        clock.advance(by: .seconds(15))
        try await eventually(model, "lapsed") { $0.offer == nil }
        #expect(model.screen.headline == .waitingForTrips)
    }

    @Test func declineTellsTheServerAndClearsTheOffer() async throws {
        try await online()
        channel.push(
            .offer(TripOffer(trip: Fixture.trip("t2", .searching, version: 1), expiresAt: Fixture.origin + 15)))
        try await eventually(model, "offer") { $0.offer != nil }
        await model.decline()
        #expect(model.offer == nil)
        #expect(await api.declines == ["t2"])
    }

    @Test func aRefusedAcceptIsRetiredAndShowsWhy() async throws {
        await api.refuseAccept("the offer for trip t3 has expired")
        try await online()
        channel.push(
            .offer(TripOffer(trip: Fixture.trip("t3", .searching, version: 1), expiresAt: Fixture.origin + 15)))
        try await eventually(model, "offer") { $0.offer != nil }
        await model.accept()
        #expect(model.screen.headline == .accepting)
        try await eventually(model, "refused") { $0.pendingAction == nil }
        #expect(
            model.screen.rejection
                == DriverScreen.Refusal(code: .forbidden, reason: "the offer for trip t3 has expired"))
        #expect(model.lastSaved?.outbox.rejections.first?.code == "forbidden")
        #expect(model.screen.headline == .waitingForTrips)
        #expect(model.outbox.entries.isEmpty)
        #expect(await api.accepts.count == 1)
        await model.dismissRejection()
        #expect(model.screen.rejection == nil)
    }

    @Test func heatAndLowPowerCoarsenThePolicyAndAreReportedAsDegraded() async throws {
        try await online()
        #expect(await api.statuses == [DriverStatusRequest(online: true, degraded: false)])
        model.setThermal(.serious)
        #expect(model.policy.degraded)
        #expect(model.policy.distanceFilter == 50)
        #expect(model.policy.accuracy == .hundredMeters)
        #expect(model.screen.degraded)
        try await eventually(model, "reported degraded") { $0.reportedDegraded == true }
        model.setThermal(.nominal)
        model.setLowPower(true)
        #expect(model.policy.distanceFilter == 50)
        #expect(model.policy.accuracy == .balanced)
        #expect(model.policy.degraded)
        model.setLowPower(false)
        try await eventually(model, "reported recovered") { $0.reportedDegraded == false }
        let statuses = await api.statuses
        #expect(statuses.first == DriverStatusRequest(online: true, degraded: false))
        #expect(statuses.contains(DriverStatusRequest(online: true, degraded: true)))
        #expect(statuses.last == DriverStatusRequest(online: true, degraded: false))
        let waiting = LocationPolicy(activity: .waitingForTrip, thermal: .nominal, lowPower: false)
        // The model's source policy was already `waiting` before the changes; wait for the last change to
        // have reached the source (the applies are chained tasks that may still be running).
        let source = source
        try await eventually(model, "source policy") {
            $0.sourcePolicy == waiting && source.policies.count > 1 && source.policies.last == waiting
        }
        #expect(source.policies.last == waiting)
    }

    @Test func aWaitingDriverStandingStillIsKeptAliveEveryFourteenSeconds() async throws {
        try await online()
        let fix = LocationPoint(
            lat: Fixture.pickup.lat, lng: Fixture.pickup.lng, accuracy: 8, heading: 90, speed: 0, t: Fixture.origin)
        source.yield(fix)
        try await eventually(model, "first fix sent") { $0.pipeline.stats.batches == 1 }
        for _ in 0..<3 {
            clock.advance(by: .seconds(14))
            let sent = model.pipeline.stats.keepAlives
            try await eventually(model, "keep-alive") { $0.pipeline.stats.keepAlives == sent + 1 }
        }
        // Waiting holds a fix up to 10 s: each keep-alive leaves 10 s after it is made.
        clock.advance(by: .seconds(10))
        try await eventually(model, "sent and acknowledged") {
            $0.pipeline.stats.batches == 4 && $0.pipeline.batcher.inFlight.isEmpty
        }
        let times = channel.sent.flatMap(\.points).map { $0.t.timeIntervalSince(Fixture.origin) }
        #expect(times == [0, 14, 28, 42])
        #expect(channel.sent.flatMap(\.points).allSatisfy { $0.lat == fix.lat && $0.lng == fix.lng })
    }
}

@Suite("DriverModel and a silent stream")
@MainActor
struct DriverModelSilentStreamTests {
    @Test func aStreamWithoutAcksIsDroppedAndItsBatchGoesOverHTTP() async throws {
        let rig = DriverModelTests()
        try await rig.online()
        rig.channel.goSilent(true)
        let fix = LocationPoint(
            lat: Fixture.pickup.lat, lng: Fixture.pickup.lng, accuracy: 8, heading: 90, speed: 0, t: Fixture.origin)
        rig.source.yield(fix)
        try await eventually(rig.model, "sent") { $0.pipeline.stats.batches == 1 }
        #expect(rig.model.pipeline.batcher.inFlight.map(\.seq) == [1])
        for _ in 0..<12 where rig.model.lastProblem == nil {
            rig.clock.advance(by: .seconds(1))
            try? await eventually(rig.model, within: 0.3, "dropped") { $0.lastProblem != nil }
        }
        // Dropped after 3 s; HTTP carries the unacknowledged fix again, under a new seq, and is acked.
        try await eventually(rig.model, "resent over HTTP") {
            $0.pipeline.stats.batches == 2 && $0.pipeline.batcher.inFlight.isEmpty
        }
        #expect(rig.model.lastProblem == "no ack for batch 1 within 3 s: the stream is silent")
        #expect(rig.model.link == .http)
        rig.channel.goSilent(false)
        rig.clock.advance(by: .seconds(2))
        try await eventually(rig.model, "reconnected") { $0.link == .stream }
        #expect(rig.channel.connects == 2)
    }
}

@Suite("DriverModel restored after a kill")
@MainActor
struct DriverModelRestoreTests {
    @Test func anActiveTripResumesTheTripPolicyAndBuffersNothingTwice() async throws {
        let buffered = [
            LocationPoint(lat: 43.7396, lng: 7.4276, accuracy: 5, heading: 0, speed: 10, t: Fixture.origin - 20),
            LocationPoint(lat: 43.7398, lng: 7.4276, accuracy: 5, heading: 0, speed: 10, t: Fixture.origin - 18),
        ]
        let saved = DriverSavedState(
            outbox: Outbox(), batcher: LocationBatcher.Snapshot(nextSeq: 41, points: buffered),
            trip: Fixture.trip("t9", .driverArrived, version: 3), online: true)
        let rig = DriverModelTests(active: Fixture.trip("t9", .onTrip, version: 4), saved: saved)
        try await rig.online()
        #expect(rig.model.trip?.state == .onTrip)
        #expect(rig.model.activity == .onTrip)
        let onTrip = LocationPolicy(activity: .onTrip, thermal: .nominal, lowPower: false)
        try await eventually(rig.model, "source policy") { $0.sourcePolicy == onTrip }
        #expect(rig.source.policies.last == onTrip)
        try await eventually(rig.model, "history sent") {
            $0.pipeline.batcher.inFlight.isEmpty && $0.pipeline.stats.batches == 1
        }
        #expect(
            rig.channel.sent.map { LocationBatch(seq: $0.seq, points: $0.points, backlog: $0.backlog) } == [
                LocationBatch(seq: 41, points: buffered, backlog: true)
            ])
        #expect(rig.channel.sent.map(\.sentAt) == [Fixture.origin])
    }
}

@Suite("DriverModel killed in a tunnel")
@MainActor
struct DriverModelTunnelKillTests {
    @Test func fixesBufferedInATunnelSurviveAKillAndGoOutAsHistory() async throws {
        let store = MemoryOutboxStore()
        let first = DriverModelTests(store: store)
        first.channel.refuse(true)
        await first.api.setUnreachable(true)
        await first.model.start()
        await first.model.goOnline()
        var fixes: [LocationPoint] = []
        for second in 0..<12 {
            let fix = LocationPoint(
                lat: 43.7300 + Double(second) * 0.0002, lng: 7.4200, accuracy: 5, heading: 0, speed: 22,
                t: Fixture.origin + Double(second))
            fixes.append(fix)
            let judged = first.model.pipeline.filter.counts.accepted
            first.source.yield(fix)
            try await eventually(first.model, "judged") { $0.pipeline.filter.counts.accepted == judged + 1 }
            first.clock.advance(by: .seconds(1))
        }
        // The buffer is saved at least every 5 s of the tunnel, so a kill loses at most the last 5 fixes. (With the
        // API unreachable the link flickers to HTTP and back and each attempt saves too, so which save is the
        // last one depends on how the machine schedules the tasks.)
        try await eventually(first.model, "saved") { ($0.lastSaved?.batcher.points.count ?? 0) >= fixes.count - 5 }
        await first.model.shutdown()
        // The kill keeps exactly what was saved.
        let kept = try #require(first.model.lastSaved?.batcher.points.count)

        let second = DriverModelTests(store: store)
        // Relaunched a minute later: the newest saved fix is history too, not the car's position.
        second.clock.advance(by: .seconds(60))
        try await second.online()
        try await eventually(second.model, "history sent") {
            $0.pipeline.stats.batches == 1 && $0.pipeline.batcher.inFlight.isEmpty
        }
        let sent = try #require(second.channel.sent.first)
        #expect(sent.backlog)
        #expect(sent.points == Array(fixes.prefix(kept)))
    }
}

@Suite("DriverModel cancelling a trip")
@MainActor
struct DriverModelCancelTests {
    @Test func aCancelShowsAtOnceThenTheDriverWaitsAgain() async throws {
        let rig = DriverModelTests(active: Fixture.trip("t5", .driverAssigned, version: 2))
        try await rig.online()
        #expect(rig.model.activity == .toPickup)
        await rig.model.tap(.cancel)
        #expect(rig.model.screen.headline == .cancelling)
        #expect(rig.model.screen.pending == .cancel)
        try await eventually(rig.model, "cancelled") { $0.outbox.entries.isEmpty }
        #expect(rig.model.trip?.state == .searching)
        #expect(rig.model.activity == .waitingForTrip)
        #expect(rig.model.screen.headline == .waitingForTrips)
        let waiting = LocationPolicy(activity: .waitingForTrip, thermal: .nominal, lowPower: false)
        try await eventually(rig.model, "source policy") { $0.sourcePolicy == waiting }
        #expect(rig.source.policies.last == waiting)
    }
}
