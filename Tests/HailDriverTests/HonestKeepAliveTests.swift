import Foundation
import HailCore
import HailDriver
import HailProtocol
import HailTestSupport
import Testing

/// A keep-alive repeats the last fix stamped now. That is true of a car standing with a fix, and false of
/// a car in a tunnel: there the rider's pin must age as the truth does.
@Suite("An honest keep-alive and a fresh fix when it matters")
struct HonestKeepAliveTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let toPickup = LocationPolicy(activity: .toPickup, thermal: .nominal, lowPower: false)
    static let waiting = LocationPolicy(activity: .waitingForTrip, thermal: .nominal, lowPower: false)

    /// A fix at `speed` m/s: a fix farther from the last than the phone's speed explains waits for the next.
    static func fix(at seconds: Double, metresNorth: Double = 0, speed: Double = 0) -> LocationPoint {
        LocationPoint(
            lat: 43.73 + metresNorth / 111_195, lng: 7.42, accuracy: 5, heading: 0, speed: speed,
            t: start.addingTimeInterval(seconds))
    }

    /// Connected under `policy`, a rider watching or not, the fix status said, one fix at the start:
    /// the times of every point sent in the first `seconds`.
    static func sentTimes(
        policy: LocationPolicy, watching: Bool, status: FixStatus, seconds: Double
    ) -> (times: [Double], pipeline: DriverLocationPipeline) {
        var pipeline = DriverLocationPipeline(policy: policy)
        var actions = pipeline.linkUp(.stream, now: start)
        actions += pipeline.riderWatchingChanged(watching, now: start)
        actions += pipeline.fix(fix(at: 0), now: start)
        actions += pipeline.fixStatusChanged(status, now: start)
        let points = ReconnectKeepAliveTests.sent(actions, &pipeline, until: start.addingTimeInterval(seconds))
        return (points.map { $0.t.timeIntervalSince(start) }, pipeline)
    }

    @Test func aCarStandingWithAFixStaysLiveForItsRider() {
        let (times, pipeline) = Self.sentTimes(policy: Self.toPickup, watching: true, status: .standing, seconds: 30)
        // The fix, then a keep-alive every 12 s stamped when it is made.
        #expect(times == [0, 12, 24])
        #expect(pipeline.stats.keepAlives == 2)
        #expect(pipeline.stats.keepAlivesWithoutFix == 0)
    }

    /// Issue 14, fourth pass: a keep-alive repeated the last fix as where a standing car is, though that fix was
    /// taken before the car came to rest, metres back; the rider's pin called a place the car had passed live.
    @Test func aStandingCarsKeepAliveRepeatsOnlyAFixTakenStanding() {
        var pipeline = DriverLocationPipeline(policy: Self.toPickup)
        _ = pipeline.linkUp(.stream, now: Self.start)
        _ = pipeline.riderWatchingChanged(true, now: Self.start)
        _ = pipeline.fixStatusChanged(.current, now: Self.start)
        _ = pipeline.fix(Self.fix(at: 0), now: Self.start)
        // The car comes to rest 5 s later, 40 m on, and its rest fix never arrives.
        _ = pipeline.fixStatusChanged(.standing, now: Self.start.addingTimeInterval(5))
        var sends: [LocationBatch] = []
        while let wake = pipeline.nextWake, wake <= Self.start.addingTimeInterval(30) {
            for case .send(let batch, _) in pipeline.tick(now: wake) {
                sends.append(batch)
                pipeline.ack(batch.seq)
            }
        }
        // The keep-alives at 12 s and 24 s say "no fix", which no rider is shown.
        let allSayNoFix = sends.allSatisfy(\.noFix)
        #expect(allSayNoFix)
        #expect(sends.count == 2)
        #expect(pipeline.stats.keepAlivesWithoutFix == 2)
        // Its rest fix arrives: from then on the keep-alive repeats it, stamped when made.
        _ = pipeline.fix(Self.fix(at: 31, metresNorth: 40), now: Self.start.addingTimeInterval(31))
        let before = pipeline.stats.keepAlivesWithoutFix
        var repeats: [LocationBatch] = []
        while let wake = pipeline.nextWake, wake <= Self.start.addingTimeInterval(60) {
            for case .send(let batch, _) in pipeline.tick(now: wake) {
                repeats.append(batch)
                pipeline.ack(batch.seq)
            }
        }
        #expect(pipeline.stats.keepAlivesWithoutFix == before)
        let restLat = Self.fix(at: 31, metresNorth: 40).lat
        let repeatTheRestFix = repeats.allSatisfy { batch in
            !batch.noFix && batch.points.allSatisfy { $0.lat == restLat }
        }
        #expect(repeatTheRestFix)
        // (The rest fix itself went at once, 40 m from the last fix sent.) Its repeats made at 43 s and 55 s, each
        // held 2 s.
        #expect(repeats.count == 2)
    }

    @Test func aCarWithNoFixSendsNothingItsRiderCouldTakeForFresh() {
        let (times, pipeline) = Self.sentTimes(
            policy: Self.toPickup, watching: true, status: .unavailable, seconds: 60)
        #expect(times == [0])
        #expect(pipeline.stats.keepAlives == 0)
        #expect(pipeline.nextWake == nil)
    }

    @Test func theLastFixBeforeATunnelGoesAtOnce() {
        var pipeline = DriverLocationPipeline(policy: Self.toPickup)
        _ = pipeline.linkUp(.stream, now: Self.start)
        _ = pipeline.riderWatchingChanged(true, now: Self.start)
        _ = pipeline.fix(Self.fix(at: 0), now: Self.start)
        // Held for the 2 s interval; the phone loses its fix 1 s later.
        let held = pipeline.fix(Self.fix(at: 1, metresNorth: 10, speed: 10), now: Self.start.addingTimeInterval(1))
        #expect(held == [.wake(at: Self.start.addingTimeInterval(3))])
        let actions = pipeline.fixStatusChanged(.unavailable, now: Self.start.addingTimeInterval(1.5))
        let sent = actions.compactMap { action -> [Date]? in
            if case .send(let batch, .stream) = action { return batch.points.map(\.t) }
            return nil
        }
        #expect(sent == [[Self.start.addingTimeInterval(1)]])
    }

    @Test func theFixFromBeforeATunnelIsNotSentAgainWhenTheFixesComeBack() {
        var (_, pipeline) = Self.sentTimes(policy: Self.toPickup, watching: true, status: .unavailable, seconds: 30)
        // Out of the tunnel: the hardware has fixes again, but none has come yet.
        let back = Self.start.addingTimeInterval(30)
        #expect(pipeline.fixStatusChanged(.current, now: back) == [])
        #expect(pipeline.lastFixIsStale)
        // The first fix after it goes, and keep-alives resume from it.
        var actions = pipeline.fix(Self.fix(at: 31, metresNorth: 300), now: back.addingTimeInterval(1))
        actions += pipeline.fixStatusChanged(.standing, now: back.addingTimeInterval(1))
        let points = ReconnectKeepAliveTests.sent(actions, &pipeline, until: back.addingTimeInterval(16))
        #expect(points.map { $0.t.timeIntervalSince(Self.start) } == [31, 43])
        #expect(!pipeline.lastFixIsStale)
    }

    @Test func aWaitingDriverWithNoFixStaysInTheGeoIndexAndSaysSo() {
        let (times, pipeline) = Self.sentTimes(
            policy: Self.waiting, watching: false, status: .unavailable, seconds: 110)
        // Waiting holds a point up to 10 s. With no fix, a keep-alive only every 48 s, under the server's
        // 60 s of silence: a tunnel passes without one.
        #expect(times == [0, 48, 96])
        #expect(pipeline.stats.keepAlives == 2)
        #expect(pipeline.stats.keepAlivesWithoutFix == 2)
        // Assigned while still without a fix: nothing more goes to the rider now watching.
        var watched = pipeline
        let actions = watched.riderWatchingChanged(true, now: Self.start.addingTimeInterval(110))
        let points = ReconnectKeepAliveTests.sent(actions, &watched, until: Self.start.addingTimeInterval(300))
        #expect(points.isEmpty)
        #expect(watched.nextWake == nil)
    }

    /// Issue 14, fourth pass: a waiting car crawling under its 50 m filter said "no fix" 14 s after its last fix,
    /// 4 s after the batch that fix went in (held 10 s): a send a minute for nothing. Its silence now counts from
    /// the last send.
    @Test func aWaitingCarMovingUnderItsFilterIsSilentAnIntervalAfterItsLastSend() {
        var pipeline = DriverLocationPipeline(policy: Self.waiting)
        var sends: [Double] = []
        func note(_ actions: [DriverLocationPipeline.Action], at seconds: Double) {
            for case .send(let batch, _) in actions {
                sends.append(seconds)
                pipeline.ack(batch.seq)
            }
        }
        note(pipeline.linkUp(.stream, now: Self.start), at: 0)
        note(pipeline.fixStatusChanged(.current, now: Self.start), at: 0)
        note(pipeline.fix(Self.fix(at: 0), now: Self.start), at: 0)
        note(pipeline.fix(Self.fix(at: 2, metresNorth: 60, speed: 30), now: Self.start.addingTimeInterval(2)), at: 2)
        // The runtime's timer: one wake at a time, the latest asked for.
        while let wake = pipeline.nextWake, wake <= Self.start.addingTimeInterval(45) {
            note(pipeline.tick(now: wake), at: wake.timeIntervalSince(Self.start))
        }
        // The first fix at once, the second held until 12 s, then "no fix" 14 s after each send.
        #expect(sends == [0, 12, 26, 40])
        #expect(pipeline.stats.keepAlivesWithoutFix == 2)
    }

    @Test func theKeepAliveOfAPhoneWithNoFixSaysSoAndIsNeverHistory() {
        var pipeline = DriverLocationPipeline(policy: Self.waiting)
        _ = pipeline.linkUp(.stream, now: Self.start)
        let first = pipeline.fix(Self.fix(at: 0), now: Self.start)
        guard case .send(let sent, _)? = first.first else { return #expect(Bool(false), "the first fix goes at once") }
        pipeline.ack(sent.seq)
        _ = pipeline.fixStatusChanged(.unavailable, now: Self.start)
        let due = Self.start.addingTimeInterval(48)
        #expect(pipeline.nextWake == due)
        let batches = pipeline.tick(now: due).compactMap { action -> LocationBatch? in
            if case .send(let batch, .stream) = action { return batch }
            return nil
        }
        var repeated = Self.fix(at: 0)
        repeated.t = due
        #expect(batches == [LocationBatch(seq: sent.seq + 1, points: [repeated], noFix: true, sentAt: due)])
        // Unacknowledged when the link drops: it is not a fix, so it is neither kept nor resent as history.
        pipeline.linkDown()
        #expect(pipeline.batcher.snapshot.points.isEmpty)
        let resent = pipeline.linkUp(.stream, now: due.addingTimeInterval(1))
        #expect(!resent.contains { if case .send = $0 { true } else { false } })
    }

    @Test func aFreshFixGoesAtOnceWithWhatWaits() {
        var pipeline = DriverLocationPipeline(policy: Self.waiting)
        _ = pipeline.linkUp(.stream, now: Self.start)
        // The first fix on a new link goes at once; a waiting driver's next one is held up to 10 s.
        _ = pipeline.fix(Self.fix(at: 0), now: Self.start)
        let held = pipeline.fix(Self.fix(at: 1, metresNorth: 20, speed: 20), now: Self.start.addingTimeInterval(1))
        #expect(held == [.wake(at: Self.start.addingTimeInterval(11))])
        // Accepted 3 s in: the fix of this instant goes now, with the held one.
        let actions = pipeline.freshFix(
            Self.fix(at: 3, metresNorth: 40, speed: 10), now: Self.start.addingTimeInterval(3))
        let batches = actions.compactMap { action -> LocationBatch? in
            if case .send(let batch, .stream) = action { return batch }
            return nil
        }
        #expect(
            batches.map { $0.points.map(\.t) } == [
                [Self.start.addingTimeInterval(1), Self.start.addingTimeInterval(3)]
            ])
        #expect(pipeline.stats.freshFixes == 1)
        // A fix no newer than the last is refused, as any fix would be.
        #expect(pipeline.freshFix(Self.fix(at: 3), now: Self.start.addingTimeInterval(3)) == [])
        #expect(pipeline.stats.freshFixes == 1)
    }
}

@Suite("DriverModel sends its fix of the moment on accepting, arriving and starting")
@MainActor
struct FreshFixTests {
    /// A fix of a car at 30 m/s: the fixes below lie 30 m a second apart while it drives.
    static func fix(at seconds: Double, metresNorth: Double) -> LocationPoint {
        LocationPoint(
            lat: Fixture.pickup.lat + metresNorth / 111_195, lng: Fixture.pickup.lng, accuracy: 5, heading: 0,
            speed: 30, t: Fixture.origin.addingTimeInterval(seconds))
    }

    @Test func theAcceptedTheArrivedAndTheStartedTripGetTheFixOfThatMoment() async throws {
        let rig = DriverModelTests()
        try await rig.online()
        rig.source.yield(Self.fix(at: 0, metresNorth: 0))
        try await eventually(rig.model, "first fix sent") { $0.pipeline.stats.batches == 1 }
        // A waiting driver's next fix is held up to 10 s.
        rig.clock.advance(by: .seconds(2))
        rig.source.yield(Self.fix(at: 2, metresNorth: 60))
        try await eventually(rig.model, "held") { $0.pipeline.batcher.pending.count == 1 }
        rig.clock.advance(by: .seconds(1))
        rig.source.setCurrentFix(Self.fix(at: 3, metresNorth: 90))
        rig.channel.push(
            .offer(TripOffer(trip: Fixture.trip("t9", .searching, version: 1), expiresAt: Fixture.origin + 15)))
        try await eventually(rig.model, "offer") { $0.offer != nil }
        await rig.model.accept()
        // Confirmed: the held fix goes with the fix of this moment, in one batch whose newest that is, so the
        // rider's first pin is where the car is now (issue 14: the held fix went alone first, and a rider
        // could be shown it, up to the waiting filter's 50 m behind the car).
        let channel = rig.channel
        try await eventually(rig.model, "fresh fix sent") { _ in channel.sent.count == 2 }
        #expect(rig.model.trip?.state == .driverAssigned)
        #expect(rig.model.pipeline.stats.freshFixes == 1)
        #expect(channel.sent.map { $0.points.map { $0.t.timeIntervalSince(Fixture.origin) } } == [[0], [2, 3]])
        // At the pickup the car stands, so the source has let no fix through for a while.
        rig.clock.advance(by: .seconds(2))
        rig.source.setCurrentFix(Self.fix(at: 5, metresNorth: 95))
        await rig.model.tap(.arrived)
        try await eventually(rig.model, "arrival fix sent") { _ in channel.sent.count == 3 }
        #expect(rig.model.pipeline.stats.freshFixes == 2)
        #expect(channel.sent.last?.points.map { $0.t.timeIntervalSince(Fixture.origin) } == [5])
        // The car crept 2 m to the kerb after the tap, under the distance filter: the start sends where it stands,
        // so the pin is true when it drives off.
        rig.clock.advance(by: .seconds(5))
        rig.source.setCurrentFix(Self.fix(at: 10, metresNorth: 97))
        await rig.model.tap(.started)
        try await eventually(rig.model, "start fix sent") { _ in channel.sent.count == 4 }
        #expect(rig.model.pipeline.stats.freshFixes == 3)
        #expect(channel.sent.last?.points.map { $0.t.timeIntervalSince(Fixture.origin) } == [10])
    }
}
