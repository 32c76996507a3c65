import Foundation
import HailCore
import HailProtocol
import HailTestSupport
import Testing

@testable import HailRider

/// The rider's model obeying its cohort's flags (`GET /v1/config`): stream or poll, the ETA source, and its
/// telemetry, on fakes and a manual clock.
@Suite("RiderModel obeys its cohort's flags")
@MainActor
struct RiderFlagsTests {
    static let pollEvery5 = ClientConfig(
        role: .rider, cohorts: ["old-riders"], liveStream: LiveStreamSetting(mode: .poll, pollIntervalSeconds: 5),
        etaSource: .roadGraph, routeProvider: "graph")

    @Test func aPollFlagMeansNoStreamAndAPollAtItsIntervalUntilTheFlagSaysStream() async throws {
        let api = FakeTripAPI(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 300))
        await api.setFlags(Self.pollEvery5)
        let h = RiderHarness(api: api)
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        try await h.until("polling") { h.model.connection == .polling }
        #expect(h.model.config == Self.pollEvery5)
        #expect(await api.count("config") == 2)
        // A poll every 5 s (the flag's interval), each with the flags, and never a stream.
        await api.put(
            Fixtures.trip(.driverAssigned, version: 2, eta: 240, location: Fixtures.position(seq: 4, at: 5, north: 250))
        )
        await h.advance(5)
        try await h.until("first poll") { h.model.driverLocation?.seq == 4 }
        #expect(await api.count("trip") == 1)
        #expect(await api.count("config") == 3)
        #expect(h.model.screen.etaMinutes == 4)
        #expect(h.model.connection == .polling)
        #expect(await h.channel.connections.pending == 0)

        // The flag turns to stream: the next poll's flags open the stream, after a resync.
        await api.setFlags(ClientConfig.defaults(for: .rider))
        await h.advance(5)
        let stream = try await h.channel.connections.next()
        #expect(stream.after == 4)
        #expect(stream.version == 2)
        stream.hello(at: 10)
        try await h.until("streaming") { h.model.connection == .streaming }
        #expect(await api.count("trip") == 2)
        #expect(await api.count("active") == 2)
        h.model.stop()
    }

    @Test func aServerWithoutTheRouteLeavesTheAppOnTheDefaultsAndStreaming() async throws {
        let api = FakeTripAPI(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 300))
        let h = RiderHarness(api: api)
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        let stream = try await h.channel.connections.next()
        stream.hello(at: 0)
        try await h.until("streaming") { h.model.connection == .streaming }
        #expect(h.model.config == ClientConfig.defaults(for: .rider))
        h.model.stop()
    }

    @Test func aStreamingAppLearnsAPollFlagAtItsNextResync() async throws {
        let api = FakeTripAPI(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 300))
        let h = RiderHarness(api: api)
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        let stream = try await h.channel.connections.next()
        stream.hello(at: 0)
        try await h.until("streaming") { h.model.connection == .streaming }
        await api.setFlags(Self.pollEvery5)
        // The stream drops (a tunnel): the reconnect's resync reads the flags, and the app polls from then on.
        stream.drop()
        await h.advance(1)
        try await h.until("polling") { h.model.connection == .polling }
        #expect(h.model.config.liveStream?.mode == .poll)
        #expect(await h.channel.connections.pending == 0)
        h.model.stop()
    }

    @Test func theStraightLineSourceShowsTheCoarseETAFromWhereTheCarIs() async throws {
        let api = FakeTripAPI(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 900))
        await api.setFlags(
            ClientConfig(
                role: .rider, liveStream: .stream, etaSource: .straightLine, routeProvider: "straight-line"))
        let h = RiderHarness(api: api)
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        let stream = try await h.channel.connections.next()
        stream.hello(at: 0)
        // 1,112 m north of the pickup: 1.3 x 1,112 m at 30 km/h is 173.5 s, 3 min; the server said 15.
        stream.moved(Fixtures.position(seq: 5, at: 0, north: 1_112), eta: 900)
        try await h.until("moved") { h.model.driverLocation?.seq == 5 }
        #expect(
            StraightLineETA.seconds(from: h.model.driverLocation!.coordinate, to: Fixtures.pickup) == 173)
        #expect(h.model.screen.etaMinutes == 3)
        h.model.stop()
    }

    @Test func telemetrySendsTheSessionAtLaunchThenABatchEveryTenMinutesOfSamples() async throws {
        let api = FakeTripAPI()
        let clock = ManualClock()
        let session = TelemetrySession(
            id: UUID(uuidString: "7C9E6679-7425-40DE-944B-E07FC1F90AE7")!, appVersion: "1.4.0",
            deviceModel: "iPhone15,2", previousSessionCrashed: true)
        let model = RiderModel(
            api: api, channel: FakeLiveChannel(), cursors: InMemoryCursorStore(),
            timeline: Timeline(clock: clock, origin: RiderHarness.phoneTime(clock, skew: 0)), telemetry: session)
        model.devicePowerChanged(DevicePower(batteryLevel: 0.5, batteryState: .unplugged))
        await model.launch()
        await clock.sleepers(atLeast: 1)
        let first = await api.telemetry
        #expect(first.count == 1)
        #expect(first.first?.sessionID == "7c9e6679-7425-40de-944b-e07fc1f90ae7")
        #expect(first.first?.startsSession == true && first.first?.previousSessionCrashed == true)
        #expect(first.first?.samples.map(\.batteryLevel) == [0.5])
        #expect(first.first?.samples.first?.active == false)
        for _ in 1...11 {
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .seconds(60))
        }
        await clock.sleepers(atLeast: 1)
        let all = await api.telemetry
        #expect(all.count == 2)
        #expect(all.last?.startsSession == false && all.last?.previousSessionCrashed == true)
        #expect(all.last?.samples.count == 12)
        #expect(all.last?.samples.first?.at == Fixtures.serverEpoch)
        #expect(all.last?.samples.last?.at == Fixtures.serverEpoch.addingTimeInterval(660))
        model.stop()
    }
}

extension RiderFlagsTests {
    @Test func whileTheStreamCannotBeHadThePollsComeAtTheCohortsInterval() async throws {
        let api = FakeTripAPI(trip: Fixtures.trip(.driverAssigned, version: 2, eta: 300))
        await api.setFlags(
            ClientConfig(
                role: .rider, liveStream: LiveStreamSetting(mode: .stream, pollIntervalSeconds: 6),
                etaSource: .roadGraph, routeProvider: "graph"))
        let h = RiderHarness(api: api)
        h.channel.refuse(next: 100)
        h.model.screenVisibilityChanged(true)
        await h.model.launch()
        await h.advance(1)
        await h.advance(2)
        await h.advance(4)
        // Fourth failure: an 8 s wait, filled with polls at the cohort's 6 s, not the app's own 4 s.
        await h.clock.sleepers(atLeast: 1)
        #expect(h.model.connection == .polling)
        #expect(await api.count("trip") == 0)
        await h.advance(4)
        await h.clock.sleepers(atLeast: 1)
        #expect(await api.count("trip") == 0)
        await h.advance(2)
        try await h.until("polled at 6 s") { h.model.connection == .polling }
        await h.clock.sleepers(atLeast: 1)
        #expect(await api.count("trip") == 1)
        h.model.stop()
    }
}
