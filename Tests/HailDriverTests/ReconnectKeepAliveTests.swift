import Foundation
import HailAppDoubles
import HailCore
import HailDriver
import HailProtocol
import HailTestSupport
import HailTime
import Testing

/// A waiting driver standing still after its server restarted: the crash loop found such drivers
/// invisible to dispatch until they moved, since the distance filter lets no fix through.
@Suite("A waiting driver is seen again after a reconnect")
struct ReconnectKeepAliveTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let waiting = LocationPolicy(activity: .waitingForTrip, thermal: .nominal, lowPower: false)

    /// Online and connected, one fix at the start; the link drops 3 s later.
    static func droppedAfterOneFix() -> (DriverLocationPipeline, LocationPoint) {
        var pipeline = DriverLocationPipeline(policy: waiting)
        _ = pipeline.linkUp(.stream, now: start)
        let fix = LocationPoint(lat: 43.73, lng: 7.42, accuracy: 5, heading: 0, speed: 0, t: start)
        _ = pipeline.fix(fix, now: start)
        pipeline.linkDown()
        return (pipeline, fix)
    }

    /// Every point sent from `actions` and the ticks they ask for, up to `until`.
    static func sent(_ actions: [DriverLocationPipeline.Action], _ pipeline: inout DriverLocationPipeline, until: Date)
        -> [LocationPoint]
    {
        var points: [LocationPoint] = []
        var pending = actions
        var ticks = 0
        while !pending.isEmpty, ticks < 20 {
            var next: [DriverLocationPipeline.Action] = []
            for action in pending {
                switch action {
                case .send(let batch, _):
                    points += batch.points
                    pipeline.ack(batch.seq)
                case .wake(let date) where date <= until:
                    ticks += 1
                    next += pipeline.tick(now: date)
                case .wake:
                    break
                }
            }
            pending = next
        }
        return points
    }

    @Test func theLastFixGoesAgainStampedWithTheReconnect() {
        var (pipeline, fix) = Self.droppedAfterOneFix()
        let back = Self.start.addingTimeInterval(5)
        _ = pipeline.linkUp(.stream, now: back)
        let actions = pipeline.waitingDriverReconnected(now: back)
        #expect(pipeline.stats.keepAlives == 1)
        let points = Self.sent(actions, &pipeline, until: back.addingTimeInterval(10))
        #expect(points.map(\.t) == [back])
        #expect(points.map(\.coordinate) == [fix.coordinate])
        #expect(points.map(\.speed) == [0])
        // Once only: the regular keep-alive takes over from there.
        #expect(pipeline.waitingDriverReconnected(now: back.addingTimeInterval(1)) == [])
    }

    @Test func notWhenAFixCameWhileTheLinkWasDown() {
        var (pipeline, _) = Self.droppedAfterOneFix()
        let moved = LocationPoint(
            lat: 43.7302, lng: 7.42, accuracy: 5, heading: 0, speed: 10, t: Self.start.addingTimeInterval(2))
        _ = pipeline.fix(moved, now: moved.t)
        let back = Self.start.addingTimeInterval(5)
        _ = pipeline.linkUp(.stream, now: back)
        #expect(pipeline.waitingDriverReconnected(now: back) == [])
        #expect(pipeline.stats.keepAlives == 0)
    }

    @Test func notWhenTheFixIsOlderThanTwoKeepAliveIntervals() {
        var (pipeline, _) = Self.droppedAfterOneFix()
        // A waiting driver's keep-alive interval is 14 s.
        let back = Self.start.addingTimeInterval(29)
        _ = pipeline.linkUp(.stream, now: back)
        #expect(pipeline.waitingDriverReconnected(now: back) == [])
        #expect(pipeline.stats.keepAlives == 0)
    }
}

@Suite("DriverModel after its server restarted")
@MainActor
struct DriverReconnectTests {
    @Test func aReconnectReportsTheStatusAgainAndWhereTheWaitingDriverStands() async throws {
        let clock = ManualClock()
        let api = FakeDriverAPI()
        let channel = ScriptedDriverChannel(serverTime: Fixture.origin)
        let source = ScriptedLocationSource()
        let model = DriverModel(
            api: api, channel: channel, location: source, store: MemoryOutboxStore(),
            timeline: Timeline(clock: clock, origin: Fixture.origin), random: SplitMix64(seed: 1))
        await model.start()
        await model.goOnline()
        try await eventually(model, "stream up") { $0.link == .stream }
        let fix = LocationPoint(
            lat: Fixture.pickup.lat, lng: Fixture.pickup.lng, accuracy: 5, heading: 0, speed: 0, t: Fixture.origin)
        source.yield(fix)
        for _ in 0..<10 where channel.sent.isEmpty {
            clock.advance(by: .seconds(1))
            try? await eventually(model, within: 1, "first fix sent") { _ in !channel.sent.isEmpty }
        }
        #expect(channel.sent.flatMap(\.points).map(\.coordinate) == [fix.coordinate])
        #expect(await api.statuses == [DriverStatusRequest(online: true, degraded: false)])

        // The server dies and comes back: the stream ends, and the model reconnects after its backoff.
        await channel.disconnect()
        try await eventually(model, "stream lost") { $0.link != .stream }
        for _ in 0..<10 where model.link != .stream {
            clock.advance(by: .seconds(1))
            try? await eventually(model, within: 1, "reconnected") { $0.link == .stream }
        }
        #expect(channel.connects == 2)
        for _ in 0..<10 where channel.sent.count < 2 {
            clock.advance(by: .seconds(1))
            try? await eventually(model, within: 1, "position sent again") { _ in channel.sent.count >= 2 }
        }
        // Standing still, no new fix came: the one from before goes again, stamped after the reconnect.
        let again = try #require(channel.sent.last?.points.last)
        #expect(again.coordinate == fix.coordinate)
        #expect(again.t > fix.t)
        #expect(model.pipeline.stats.keepAlives == 1)
        #expect(
            await api.statuses == [
                DriverStatusRequest(online: true, degraded: false), DriverStatusRequest(online: true, degraded: false),
            ])
        await model.shutdown()
    }
}
