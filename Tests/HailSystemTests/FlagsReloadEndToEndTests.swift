import Foundation
import HailAppDoubles
import HailClient
import HailCore
import HailDriver
import HailNet
import HailNetTransport
import HailProcess
import HailProtocol
import HailServer
import HailTesting
import HailTime
import Synchronization
import Testing

@testable import HailRider

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The flags end to end: a real `hail server --flags FILE` on loopback, its file rewritten and the process sent
/// SIGHUP, and running apps (real `RiderModel`s and a `DriverModel` on the live transports, waiting on manual
/// clocks) obeying the new flags at their next resync, one cohort changed and another not.
@Suite("Flags reloaded by SIGHUP reach running apps", .serialized)
@MainActor
struct FlagsReloadEndToEndTests {
    /// The rider's REST calls, counting the polls and the flags read.
    final class TallyingTripAPI: TripAPI {
        let inner: RiderHTTPAPI
        let tally = Mutex<[String: Int]>([:])

        init(inner: RiderHTTPAPI) { self.inner = inner }

        func count(_ call: String) -> Int { tally.withLock { $0[call] ?? 0 } }
        private func note(_ call: String) { tally.withLock { $0[call, default: 0] += 1 } }

        func estimates(pickup: Coordinate, dropoff: Coordinate) async throws -> [Estimate] {
            try await inner.estimates(pickup: pickup, dropoff: dropoff)
        }
        func requestTrip(_ request: TripRequest, idempotencyKey: UUID) async throws -> Trip {
            try await inner.requestTrip(request, idempotencyKey: idempotencyKey)
        }
        func activeTrip() async throws -> Trip? { try await inner.activeTrip() }
        func trip(id: String) async throws -> Trip {
            note("trip")
            return try await inner.trip(id: id)
        }
        func cancel(tripID: String, idempotencyKey: UUID) async throws -> Trip {
            try await inner.cancel(tripID: tripID, idempotencyKey: idempotencyKey)
        }
        func config() async throws -> ClientConfig? {
            note("config")
            return try await inner.config()
        }
    }

    /// The rider's stream, counting the streams opened.
    final class CountingLiveChannel: LiveTripChannel {
        let inner: RiderLiveChannel
        let opened = Mutex(0)

        init(inner: RiderLiveChannel) { self.inner = inner }

        var count: Int { opened.withLock { $0 } }

        func open(tripID: String, after seq: Int64?) async throws -> AsyncThrowingStream<RiderServerFrame, any Error> {
            try await open(tripID: tripID, after: seq, version: nil)
        }

        func open(tripID: String, after seq: Int64?, version: Int?) async throws
            -> AsyncThrowingStream<RiderServerFrame, any Error>
        {
            opened.withLock { $0 += 1 }
            return try await inner.open(tripID: tripID, after: seq, version: version)
        }
    }

    /// One rider phone of a given app version on the real transports, its waits on a manual clock.
    @MainActor
    final class Rider {
        let api: TallyingTripAPI
        let channel: CountingLiveChannel
        let clock = ManualClock()
        let model: RiderModel

        init(server: SystemServer, id: String, version: String, connector: SocketConnector) {
            let client = ClientInfo(app: "hail-rider", version: version, deviceModel: "iPhone14,2")
            let token = server.token(.rider, id)
            api = TallyingTripAPI(
                inner: RiderHTTPAPI(transport: HTTPTransport(baseURL: server.baseURL, token: token, client: client)))
            channel = CountingLiveChannel(
                inner: RiderLiveChannel(baseURL: server.baseURL, token: token, connector: connector, client: client))
            model = RiderModel(
                api: api, channel: channel, cursors: InMemoryCursorStore(),
                timeline: Timeline(clock: clock, now: { Date() }))
        }

        /// Returns once `condition` holds, checked after every step of the model; throws after `seconds`.
        func until(_ what: String, within seconds: Double = 20, _ condition: () -> Bool) async throws {
            try await HailTesting.until(
                model.changes(), what, within: seconds, state: { "connection \(model.connection)" }, condition)
        }

        /// Requests a ride and waits until its stream is open.
        func rideAndStream() async throws {
            model.screenVisibilityChanged(true)
            await model.launch()
            await model.requestRide(
                pickup: Coordinate(lat: 43.7396, lng: 7.4276), dropoff: Coordinate(lat: 43.7314, lng: 7.4197),
                product: .economy)
            try await until("streaming") { model.connection == .streaming }
        }

        /// The app goes to the background and comes back: the live loop resyncs.
        func backgroundAndBack() {
            model.screenVisibilityChanged(false)
            model.screenVisibilityChanged(true)
        }
    }

    static let monaco = #"{"name": "monaco", "south": 43.72, "west": 7.40, "north": 43.76, "east": 7.44}"#

    @Test func aSIGHUPTurnsOneCohortToPollingAndCapsOnePhoneModelWhileTheOthersCarryOn() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ServerChild.hailBesideThisExecutable))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hail-sighup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let flags = folder.appendingPathComponent("flags.json")
        try Data(#"{"regions": [\#(Self.monaco)]}"#.utf8).write(to: flags)
        let server = try await SystemServer(folder: folder, arguments: ["--flags", flags.path])
        let connector = SocketConnector(transport: try NetSocketTransport())

        // Two riders of two releases, both streaming; a driver on an iPhone 12, online in Monaco.
        let old = Rider(server: server, id: "rider-old", version: "1.3.2", connector: connector)
        let current = Rider(server: server, id: "rider-current", version: "1.4.0", connector: connector)
        try await old.rideAndStream()
        try await current.rideAndStream()
        let driverClock = ManualClock()
        let driverToken = server.token(.driver, "driver-12")
        let driverClient = ClientInfo(app: "hail-driver", version: "1.4.0", deviceModel: "iPhone13,2")
        let liveChannel = DriverLiveChannel(
            connector: connector, server: server.baseURL, token: driverToken, client: driverClient)
        let source = ScriptedLocationSource()
        let driver = DriverModel(
            api: DriverHTTPAPI(
                transport: HTTPTransport(baseURL: server.baseURL, token: driverToken, client: driverClient)),
            channel: liveChannel, location: source, store: MemoryOutboxStore(),
            timeline: Timeline(clock: driverClock, origin: Date()), random: SplitMix64(seed: 3),
            backoff: Backoff(jitter: .none))
        await driver.start()
        await driver.goOnline()
        try await driver.until("stream up") { $0.link == .stream }
        source.yield(
            LocationPoint(lat: 43.7384, lng: 7.4246, accuracy: 8, heading: 0, speed: 0, t: Date()))
        try await driver.until("first fix sent") { $0.pipeline.stats.batches == 1 }
        driverClock.advance(by: .seconds(10))
        try await driver.until("acknowledged") {
            $0.pipeline.batcher.inFlight.isEmpty && $0.pipeline.batcher.pending.isEmpty
        }
        let waiting = LocationPolicy(activity: .waitingForTrip, thermal: .nominal, lowPower: false)
        #expect(driver.policy == waiting)

        // The operator turns 1.3 riders to polling and caps the iPhone 12 in Monaco, and reloads.
        try Data(
            """
            {"regions": [\(Self.monaco)],
             "cohorts": [
               {"name": "old-riders", "match": {"role": "rider", "version": "1.3.*"},
                "flags": {"liveStream": {"mode": "poll", "pollIntervalSeconds": 3}}},
               {"name": "cool-iphone12", "match": {"role": "driver", "device": "iPhone13,*", "region": "monaco"},
                "flags": {"locationPolicyCap": {"finestAccuracy": "hundredMeters", "minimumDistanceFilterMeters": 80}}}
             ]}
            """.utf8
        ).write(to: flags)
        let applied = try await server.reload()
        #expect(applied.contains(#""event":"flags_reloaded""#) && applied.contains(#""cohorts":2"#))

        // Within one resync (the apps return to the foreground): the old release polls, the current one streams.
        let streamsBefore = (old.channel.count, current.channel.count)
        old.backgroundAndBack()
        current.backgroundAndBack()
        try await old.until("polling") { old.model.connection == .polling }
        try await current.until("streaming again") { current.model.connection == .streaming }
        #expect(old.model.config.liveStream == LiveStreamSetting(mode: .poll, pollIntervalSeconds: 3))
        #expect(old.model.config.cohorts == ["old-riders"])
        #expect(current.model.config.liveStream == .stream)
        #expect(old.channel.count == streamsBefore.0)
        #expect(current.channel.count == streamsBefore.1 + 1)
        // It polls at the flag's interval, on its clock: one trip read per 3 s, no stream.
        let polls = old.api.count("trip")
        for poll in 1...3 {
            await old.clock.sleepers(atLeast: 1)
            old.clock.advance(by: .seconds(3))
            try await old.until("poll \(poll)") { old.api.count("trip") == polls + poll }
        }
        #expect(old.channel.count == streamsBefore.0)
        #expect(old.model.connection == .polling)

        // The driver's socket drops; its reconnect reads the flags and the cap holds its policy.
        await liveChannel.disconnect()
        try await driver.until("over HTTP") { $0.link == .http }
        driverClock.advance(by: .seconds(1))
        let cap = LocationPolicyCap(finestAccuracy: .hundredMeters, minimumDistanceFilterMeters: 80)
        try await driver.until("capped") { $0.link == .stream && $0.config.locationPolicyCap == cap }
        #expect(driver.config.region == "monaco")
        #expect(driver.policy == waiting.capped(by: cap))
        #expect(
            driver.policy.distanceFilter == 80 && driver.policy.accuracy == .hundredMeters && driver.policy.degraded)
        try await driver.until("source capped") { $0.sourcePolicy == waiting.capped(by: cap) }
        try await driver.until("reported degraded") { $0.reportedDegraded == true }
        #expect(try await server.metrics().contains(#"hail_drivers_degraded{region="monaco"} 1"#))

        // A bad file is refused with its line and field, and nothing changes.
        try Data("{\n  \"cohorts\": [{\"name\": \"x\", \"match\": {}, \"flags\": {\"etaSource\": \"crow\"}}]\n}".utf8)
            .write(to: flags)
        let refused = try await server.reload()
        #expect(refused.contains(#""event":"flags_rejected""#))
        #expect(
            refused.contains(
                #"line 2: cohorts[0].flags.etaSource: must be one of roadGraph, straightLine, not \"crow\""#))
        old.backgroundAndBack()
        try await old.until("still polling") { old.model.connection == .polling && old.api.count("config") > 0 }
        let metrics = try await server.metrics()
        #expect(metrics.contains(#"hail_flags_reloads_total{result="applied"} 1"#))
        #expect(metrics.contains(#"hail_flags_reloads_total{result="rejected"} 1"#))
        #expect(metrics.contains("hail_flags_last_reload_successful 0"))
        #expect(metrics.contains("hail_flags_cohorts 2"))

        old.model.stop()
        current.model.stop()
        await driver.shutdown()
        await connector.shutdown()
        await server.stop()
    }
}

extension SystemServer {
    /// Sends SIGHUP and returns the reload's log line.
    func reload() async throws -> String {
        child.process.send(SIGHUP)
        let line = await withDeadline(60) { () -> String? in
            for await line in self.child.errorLines where line.contains(#""event":"flags_"#) { return line }
            return nil
        }
        return try #require(line, "no reload logged")
    }

    /// The server's `/metrics`.
    func metrics() async throws -> String {
        var request = URLRequest(url: baseURL.appendingPathComponent("metrics"))
        request.setValue("Bearer \(token(.operator, "ops"))", forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: request)
        return String(decoding: data, as: UTF8.self)
    }
}
