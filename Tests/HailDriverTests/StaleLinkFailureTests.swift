import Foundation
import HailAppDoubles
import HailCore
import HailDriver
import HailProtocol
import HailTestSupport
import HailTime
import Synchronization
import Testing

/// A driver API whose location posts hang, as requests waiting out their timeout on a dead network, until
/// the test lets them fail; everything else answers at once.
actor HangingLocationsAPI: DriverAPI {
    private var hanging: [CheckedContinuation<Void, any Error>] = []
    private var arrivals: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var failing = false
    private(set) var posted: [LocationBatch] = []

    func sendLocations(_ batch: LocationBatch) async throws -> LocationAck {
        posted.append(batch)
        let ready = arrivals.filter { $0.count <= posted.count }
        arrivals.removeAll { $0.count <= posted.count }
        for arrival in ready { arrival.continuation.resume() }
        if failing { throw CallError.noNetwork }
        try await withCheckedThrowingContinuation { hanging.append($0) }
        return LocationAck(seq: batch.seq)
    }

    /// Returns once `count` posts have arrived.
    func untilPosted(_ count: Int) async {
        if posted.count >= count { return }
        await withCheckedContinuation { arrivals.append((count, $0)) }
    }

    /// Every hanging post times out now, and later ones fail at once.
    func timeOut() {
        failing = true
        for post in hanging { post.resume(throwing: CallError.noNetwork) }
        hanging = []
    }

    func setStatus(_ status: DriverStatusRequest) {}
    func activeTrip() -> Trip? { nil }
    func trip(id: String) throws -> Trip { throw CallError.refusal("trip \(id) is not assigned to you") }
    func accept(tripID: String, key: UUID) -> Trip { Fixture.trip(tripID, .driverAssigned, version: 2) }
    func decline(tripID: String) {}
    func report(_ event: TripEventKind, tripID: String, key: UUID, path: [LocationPoint]?) -> Trip {
        Fixture.trip(tripID, .onTrip, version: 3)
    }
    func cancel(tripID: String, key: UUID) -> Trip { Fixture.trip(tripID, .searching, version: 3) }
}

/// Chaos runs of the simulated city found drivers with no link for minutes while their stream was open: a
/// location post sent over HTTP while the stream was down timed out after the stream had come back, and
/// its failure took the link down with nothing left to bring it up until the socket broke by itself.
@Suite("A driver's link after a late failure")
@MainActor
struct StaleLinkFailureTests {
    @Test func aPostThatTimesOutAfterTheStreamCameBackLeavesTheStreamUp() async throws {
        let clock = ManualClock()
        let api = HangingLocationsAPI()
        let channel = ScriptedDriverChannel(serverTime: Fixture.origin)
        let source = ScriptedLocationSource()
        let model = DriverModel(
            api: api, channel: channel, location: source, store: MemoryOutboxStore(),
            timeline: Timeline(clock: clock, origin: Fixture.origin), random: SplitMix64(seed: 1))
        await model.start()
        await model.goOnline()
        try await eventually(model, "stream up") { $0.link == .stream }

        // The stream goes quiet: the first fix goes out on it and is never acknowledged.
        channel.goSilent(true)
        let fix = LocationPoint(
            lat: Fixture.pickup.lat, lng: Fixture.pickup.lng, accuracy: 5, heading: 0, speed: 0, t: Fixture.origin)
        source.yield(fix)
        for _ in 0..<5 where channel.sent.isEmpty {
            clock.advance(by: .seconds(1))
            try? await eventually(model, within: 1, "first fix sent") { _ in !channel.sent.isEmpty }
        }
        #expect(channel.sent.flatMap(\.points).map(\.coordinate) == [fix.coordinate])

        // The stream breaks: the unacknowledged fix goes again over HTTP, and that post hangs.
        await channel.disconnect()
        try await eventually(model, "on HTTP") { $0.link == .http }
        try await within(60, "the post over HTTP") { await api.untilPosted(1) }

        // The stream comes back (the backoff's first wait is at most 1 s) while the post still hangs.
        channel.goSilent(false)
        clock.advance(by: .seconds(1))
        try await eventually(model, "stream back") { $0.link == .stream }
        #expect(channel.connects == 2)

        // The post times out now. It says nothing about the stream, which carries the fix again.
        #expect(!model.pipeline.batcher.inFlight.isEmpty)
        await api.timeOut()
        try await eventually(model, "the post's failure handled") {
            $0.link == .down || $0.pipeline.batcher.inFlight.isEmpty
        }
        #expect(model.link == .stream)
        #expect(model.pipeline.batcher.buffer.isEmpty)
        // The stream carried the fix live (never acknowledged), then again after the reconnect.
        #expect(channel.sent.map(\.seq) == [1, 3])
        #expect(channel.sent.flatMap(\.points).map(\.coordinate) == [fix.coordinate, fix.coordinate])
        #expect(channel.sent.flatMap(\.points).map(\.t) == [fix.t, fix.t])
        #expect(await api.posted.flatMap(\.points).map(\.coordinate) == [fix.coordinate])
        await model.shutdown()
    }
}
