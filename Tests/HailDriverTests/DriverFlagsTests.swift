import Foundation
import HailAppDoubles
import HailCore
import HailDriver
import HailProtocol
import HailTestSupport
import HailTime
import Testing

/// The driver's model obeying its cohort's location cap, measured in sends an hour on the manual clock, and its
/// telemetry.
@Suite("DriverModel obeys its cohort's location cap")
@MainActor
struct DriverFlagsTests {
    let clock = ManualClock()
    let api = FakeDriverAPI(active: Fixture.trip("t1", .driverAssigned, version: 2))
    let channel = ScriptedDriverChannel(serverTime: Fixture.origin)
    let source = ScriptedLocationSource()
    let model: DriverModel

    static let cap = LocationPolicyCap(finestAccuracy: .nearestTenMeters, minimumDistanceFilterMeters: 50)

    init() {
        model = DriverModel(
            api: api, channel: channel, location: source, store: MemoryOutboxStore(),
            timeline: Timeline(clock: clock, origin: Fixture.origin), random: SplitMix64(seed: 1),
            backoff: Backoff(jitter: .none))
    }

    var now: Date { Fixture.origin.addingTimeInterval(Double(clock.now.offset.components.seconds)) }

    /// Drives north at 10 m/s for `seconds`, one raw fix a second, of which the phone's hardware reports those
    /// its distance filter lets through (the policy the source last applied); returns the batches sent meanwhile.
    func drive(seconds: Int, from start: inout Double) async throws -> Int {
        let before = model.pipeline.stats.batches
        var last: LocationPoint?
        for _ in 0..<seconds {
            clock.advance(by: .seconds(1))
            start += 10
            let point = LocationPoint(
                lat: Fixture.pickup.lat + start / 111_195, lng: Fixture.pickup.lng, accuracy: 5, heading: 0, speed: 10,
                t: now)
            let policy = try #require(model.sourcePolicy)
            let due = model.pipeline.nextWake.map { $0 <= now } ?? false
            if due {
                // The wake is handled: the held batch went, or the batcher waits its grace for the fix on its way.
                let sent = model.pipeline.stats.batches
                let at = now
                try await eventually(model, "the wake handled") { model in
                    model.pipeline.stats.batches > sent || (model.pipeline.nextWake.map { $0 > at } ?? true)
                }
            }
            guard TraceReplayer.passes(point, after: last, policy: policy) else { continue }
            last = point
            let judged = model.pipeline.filter.counts.accepted
            source.yield(point)
            try await eventually(model, "fix judged") { $0.pipeline.filter.counts.accepted > judged }
        }
        return model.pipeline.stats.batches - before
    }

    @Test func aCapArrivingAtAReconnectCutsTheSendsAnHourOfADriverOnTheWayToPickup() async throws {
        await model.start()
        try await eventually(model, "stream up") { $0.link == .stream }
        let best = LocationPolicy(activity: .toPickup, thermal: .nominal, lowPower: false)
        try await eventually(model, "best applied") { $0.sourcePolicy == best }
        var metres = 0.0
        // Best accuracy, 5 m filter: every fix passes; a batch goes with the fix that turns its oldest 2 s old, so
        // three fixes a batch, one every 3 s.
        let uncapped = try await drive(seconds: 120, from: &metres)
        #expect(uncapped * 30 == 1200)

        // The iPhone 12 cohort is capped on the server; the driver's socket drops and the reconnect reads the flags.
        await api.setFlags(
            ClientConfig(role: .driver, cohorts: ["cool-iphone12"], locationPolicyCap: Self.cap, routeProvider: "graph")
        )
        await channel.disconnect()
        try await eventually(model, "over HTTP") { $0.link == .http }
        // A steady stream dropped without a close frame waits up to `Backoff.afterDrop`'s 3 s before reconnecting.
        clock.advance(by: .seconds(3))
        try await eventually(model, "reconnected") { $0.link == .stream && $0.config.locationPolicyCap == Self.cap }
        let capped = LocationPolicy(
            isOff: false, interval: 2...4, distanceFilter: 50, accuracy: .nearestTenMeters, degraded: true,
            movingDistance: LocationPolicy.watchedMovingDistance)
        #expect(model.policy == capped)
        try await eventually(model, "cap applied") { $0.sourcePolicy == capped }
        try await eventually(model, "reported degraded") { $0.reportedDegraded == true }
        // 50 m between fixes at 10 m/s: a fix every 5 s, each its own batch, at once (50 m from the last one sent).
        let cooled = try await drive(seconds: 120, from: &metres)
        #expect(cooled * 30 == 720)
        await model.shutdown()
    }

    @Test func telemetryCountsTheOnlineTimeAndTheDegradedPartOfIt() async throws {
        let session = TelemetrySession(
            id: UUID(uuidString: "7C9E6679-7425-40DE-944B-E07FC1F90AE7")!, appVersion: "1.4.0",
            deviceModel: "iPhone13,2", previousSessionCrashed: false,
            log: TelemetryLog.Configuration(sampleInterval: 60, sendInterval: 120))
        let model = DriverModel(
            api: api, channel: channel, location: source, store: MemoryOutboxStore(),
            timeline: Timeline(clock: clock, origin: Fixture.origin), random: SplitMix64(seed: 1),
            telemetry: session)
        model.devicePowerChanged(DevicePower(batteryLevel: 0.9, batteryState: .unplugged, thermal: .serious))
        await model.start()
        try await eventually(model, "stream up") { $0.link == .stream }
        try await eventually(model, "the session's first batch accepted") { $0.telemetry.sessionReported }
        for minute in 1...3 {
            clock.advance(by: .seconds(60))
            try await eventually(model, "sample \(minute)") {
                $0.telemetry.pending.count == minute || $0.telemetry.anchor?.at == Fixture.origin + 180
            }
        }
        let batches = await api.telemetry
        #expect(batches.count == 2)
        #expect(batches[0].samples.map(\.active) == [true])
        #expect(batches[0].samples.map(\.degraded) == [true])
        #expect(batches[0].samples.map(\.thermalState) == [.serious])
        #expect(batches[1].samples.map { $0.at.timeIntervalSince(Fixture.origin) } == [0, 60, 120, 180])
        await model.shutdown()
    }
}
