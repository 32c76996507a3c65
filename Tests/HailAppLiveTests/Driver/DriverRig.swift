import Foundation
import HailAppDoubles
import HailClient
import HailCore
import HailDriver
import HailNetTransport
import HailProtocol
import HailServer
import HailTesting
import HailTime

/// One driver phone against the real server, both on the same manual clock, the network behind a switch.
@MainActor
final class DriverRig {
    let clock: ManualClock
    let origin: Date
    /// One timeline for every launch: the phone's clock does not restart with the app.
    let timeline: Timeline
    let loopback: DriverLoopback
    let connector: SocketConnector
    let network = Network()
    let driverToken: String
    let riderToken: String
    var source = ScriptedLocationSource()
    var store: any OutboxStore
    var channel: SwitchedChannel
    var model: DriverModel

    /// Pickup and dropoff 5 km apart on a meridian, so the fare is above the minimum.
    static let pickup = Coordinate(lat: 43.7300, lng: 7.4200)
    static let dropoff = Coordinate(lat: 43.7750, lng: 7.4200)

    init(store: (any OutboxStore)? = nil) async throws {
        clock = ManualClock()
        // Whole seconds, so device times survive the millisecond wire format exactly.
        origin = Date(timeIntervalSince1970: (Date().timeIntervalSince1970).rounded(.down))
        timeline = Timeline(clock: clock, origin: origin)
        loopback = try await DriverLoopback.start(clock: clock, origin: origin)
        connector = SocketConnector(transport: try NetSocketTransport())
        driverToken = loopback.token(.driver, "driver-1")
        riderToken = loopback.token(.rider, "rider-1")
        self.store = store ?? MemoryOutboxStore()
        (channel, model) = (SwitchedChannel(inner: NoChannel(), network: network), DriverModel.placeholder())
        relaunch()
    }

    var now: Date { timeline.now() }

    /// A fresh app process on the same store: new model, new transports, new location source.
    func relaunch(store newStore: (any OutboxStore)? = nil) {
        if let newStore { store = newStore }
        let (api, live) = loopback.driverTransports(token: driverToken, connector: connector)
        channel = SwitchedChannel(inner: live, network: network)
        source = ScriptedLocationSource()
        model = DriverModel(
            api: SwitchedAPI(inner: api, network: network), channel: channel, location: source, store: store,
            timeline: timeline, random: SplitMix64(seed: 7))
    }

    func stop() async {
        await model.shutdown()
        await connector.shutdown()
        await loopback.stop()
    }

    /// A fix at `coordinate` taken now, heading north at 60 km/h.
    func fix(_ coordinate: Coordinate) -> LocationPoint {
        LocationPoint(lat: coordinate.lat, lng: coordinate.lng, accuracy: 5, heading: 0, speed: 16.7, t: now)
    }

    /// Lets `seconds` pass (a batch's hold), then waits until every fix given so far has been sent and
    /// acknowledged.
    func settled(advancing seconds: Int = 0) async throws {
        if seconds > 0 { clock.advance(by: .seconds(seconds)) }
        try await eventually(model, "positions acknowledged") {
            $0.pipeline.batcher.pending.isEmpty && $0.pipeline.batcher.inFlight.isEmpty
        }
    }

    /// One second passes, then a fix at `coordinate` arrives, the model has judged it and the server has
    /// acknowledged whatever it sent: loopback answers in well under the phone's second, and the model's
    /// silent-stream watchdog would otherwise see manual time outrun real acks.
    func drive(to coordinate: Coordinate) async throws {
        clock.advance(by: .seconds(1))
        try await give(fix(coordinate))
        try await eventually(model, "acknowledged") { $0.pipeline.batcher.inFlight.isEmpty }
    }

    /// Hands the model a fix and waits until its filter has judged it.
    func give(_ point: LocationPoint) async throws {
        let judged = model.pipeline.filter.counts.accepted + model.pipeline.filter.counts.rejected
        source.yield(point)
        try await eventually(model, "fix judged") {
            $0.pipeline.filter.counts.accepted + $0.pipeline.filter.counts.rejected > judged
        }
    }

    /// Goes online, places the car at the pickup, gets the rider's request offered and accepts it.
    func acceptATrip() async throws -> Trip {
        await model.start()
        await model.goOnline()
        try await eventually(model, "stream up") { $0.link == .stream }
        try await give(fix(Self.pickup))
        try await settled()
        let trip = try await loopback.requestTrip(rider: riderToken, pickup: Self.pickup, dropoff: Self.dropoff)
        clock.advance(by: .seconds(1))
        try await eventually(model, "offer") { $0.offer?.trip.id == trip.id }
        await model.accept()
        try await eventually(model, "assigned") { $0.trip?.state == .driverAssigned && $0.pendingAction == nil }
        return trip
    }

    /// Arrives and starts the trip.
    func startTheTrip() async throws {
        await model.tap(.arrived)
        try await eventually(model, "arrived") { $0.trip?.state == .driverArrived && $0.pendingAction == nil }
        await model.tap(.started)
        try await eventually(model, "started") { $0.trip?.state == .onTrip && $0.pendingAction == nil }
    }

    /// The point `step` seconds into a 300 s drive from pickup to dropoff.
    static func along(_ step: Int) -> Coordinate {
        pickup.interpolated(to: dropoff, fraction: Double(step) / 300)
    }
}

/// A channel that never connects, standing in until the rig has made the real one.
struct NoChannel: DriverChannel {
    func connect() async throws -> AsyncStream<DriverServerFrame> { throw CallError.noNetwork }
    func send(_ batch: LocationBatch) async throws { throw CallError.noNetwork }
    func disconnect() async {}
}

/// An API that never answers, standing in until the rig has made the real one.
struct NoAPI: DriverAPI {
    func setStatus(_ status: DriverStatusRequest) async throws { throw CallError.noNetwork }
    func sendLocations(_ batch: LocationBatch) async throws -> LocationAck { throw CallError.noNetwork }
    func activeTrip() async throws -> Trip? { throw CallError.noNetwork }
    func trip(id: String) async throws -> Trip { throw CallError.noNetwork }
    func accept(tripID: String, key: UUID) async throws -> Trip { throw CallError.noNetwork }
    func decline(tripID: String) async throws { throw CallError.noNetwork }
    func report(_ event: TripEventKind, tripID: String, key: UUID, path: [LocationPoint]?) async throws -> Trip {
        throw CallError.noNetwork
    }
    func cancel(tripID: String, key: UUID) async throws -> Trip { throw CallError.noNetwork }
}

extension DriverModel {
    @MainActor static func placeholder() -> DriverModel {
        DriverModel(
            api: NoAPI(), channel: NoChannel(), location: ScriptedLocationSource(), store: MemoryOutboxStore(),
            timeline: Timeline(clock: ManualClock(), origin: Date(timeIntervalSince1970: 0)))
    }
}
