import Foundation
import HailCore
import HailProtocol
import HailRoads
import HailTime

/// The operator's fleet feed behind `/v1/fleet/live`: one reading of the fleet and the active trips per
/// tick of the server's clock, shared by every viewer on this node, turned by `OperatorFeedState` into at
/// most three frames, each encoded once and sent to every viewer.
///
/// It runs only while someone watches: the first viewer starts it, the last one leaving stops it. A
/// viewer's cost is bounded by the tick, not by the fleet's traffic: it never touches the location ingest,
/// so a driver's batch costs the same with or without operators watching. A new viewer gets hello at once
/// and the snapshot of the next reading, after which every delta applies to what it holds.
public actor OperatorFeed {
    /// A viewer's socket: queues a frame with its class (essential or disposable) and never waits.
    public typealias Viewer = @Sendable (BusMessage) -> Void

    /// How often the fleet is read while someone watches.
    public static let interval: Duration = .seconds(1)
    /// The most road paths computed in one tick: past it, cars glide straight (the feed's work stays bounded).
    static let pathsPerTick = 500
    /// The centre idle drivers of other nodes are looked for around (Monaco, as `/v1/fleet`).
    static let center = Coordinate(lat: 43.7384, lng: 7.4246)

    private let time: Timeline
    private let metrics: ServerMetrics
    private let trips: any TripStore
    private let fleet: Fleet
    private let routing: ServerRouting
    private let directory: any DriverDirectory
    private var state = OperatorFeedState()
    private var viewers: [UInt64: Viewer] = [:]
    private var waiting: [UInt64: Viewer] = [:]
    private var nextID: UInt64 = 0
    private var ticker: Task<Void, Never>?
    private var cards: [String: Driver] = [:]
    private var snaps: [String: RoadSnap] = [:]

    init(
        time: Timeline, metrics: ServerMetrics, trips: any TripStore, fleet: Fleet, routing: ServerRouting,
        directory: any DriverDirectory
    ) {
        self.time = time
        self.metrics = metrics
        self.trips = trips
        self.fleet = fleet
        self.routing = routing
        self.directory = directory
    }

    /// How many viewers are watching (those still waiting for their snapshot included).
    public var viewerCount: Int { viewers.count + waiting.count }

    /// Adds a viewer: hello now, the snapshot with the next reading (at once when the feed was idle); returns
    /// the id to leave with.
    public func join(_ viewer: @escaping Viewer) -> UInt64 {
        nextID += 1
        viewer(Self.message(.hello(serverTime: time.now()), .essential))
        waiting[nextID] = viewer
        if ticker == nil { ticker = Task { await self.run() } }
        return nextID
    }

    /// Removes a viewer; the last one leaving stops the feed.
    public func leave(_ id: UInt64) {
        viewers[id] = nil
        waiting[id] = nil
    }

    /// A snapshot read now, for a stream that does not stay (the in-process streams the fuzzer runs).
    func snapshotNow() async -> OperatorServerFrame {
        var reading = OperatorFeedState()
        if let (cars, active, _) = await read(known: reading) {
            _ = reading.advance(
                cars: cars, trips: active, ended: [:], now: time.now(), reconnects: metrics.reconnectCount(),
                path: { _, _ in nil })
        }
        return reading.snapshot(
            at: time.now(), reconnects: metrics.reconnectCount(), operability: metrics.operability())
    }

    private func run() async {
        while !viewers.isEmpty || !waiting.isEmpty {
            await tick()
            do { try await time.sleep(for: Self.interval) } catch { break }
        }
        // Nobody watches: forget the reading, so the next viewer starts from a fresh one.
        ticker = nil
        state = OperatorFeedState()
        snaps = [:]
    }

    /// One reading, its delta to every viewer, then the snapshot to those waiting for one.
    private func tick() async {
        guard let (cars, active, ended) = await read(known: state) else { return }
        let now = time.now()
        let reconnects = metrics.reconnectCount()
        let operability = metrics.operability()
        let roads = routing.roads(for: nil)
        var snaps = self.snaps
        var budget = Self.pathsPerTick
        let delta = state.advance(
            cars: cars, trips: active, ended: ended, now: now, reconnects: reconnects, operability: operability,
            path: { old, new in
                guard let roads, budget > 0 else { return nil }
                budget -= 1
                return Self.roadPath(roads, radius: routing.snapRadius, from: old, to: new, snaps: &snaps)
            })
        self.snaps = snaps.filter { state.car($0.key) != nil }
        var frames: [BusMessage] = []
        if let changed = delta.changed { frames.append(Self.message(changed, .essential)) }
        if let moved = delta.moved { frames.append(Self.message(moved, .disposable)) }
        frames.append(Self.message(delta.stats, .disposable))
        for viewer in viewers.values {
            for frame in frames { viewer(frame) }
        }
        guard !waiting.isEmpty else { return }
        let snapshot = Self.message(
            state.snapshot(at: now, reconnects: reconnects, operability: operability), .essential)
        for (id, viewer) in waiting {
            viewer(snapshot)
            viewers[id] = viewer
        }
        waiting = [:]
    }

    /// The fleet and the active trips now, and the final records of trips `known` had that are no longer
    /// active; nil when the stores cannot be read (the tick is skipped rather than the map emptied).
    private func read(known: OperatorFeedState) async -> ([OperatorCar], [OperatorTrip], [String: OperatorTrip])? {
        guard let records = try? await trips.activeRecords(),
            let found = try? await fleet.snapshotCars(activeTrips: records, around: Self.center)
        else { return nil }
        var cars: [OperatorCar] = []
        var positions: [String: FleetSnapshot.Car] = [:]
        let tripDrivers = Dictionary(
            records.compactMap { record in record.trip.driver.map { ($0.id, $0) } }, uniquingKeysWith: { a, _ in a })
        for car in found {
            positions[car.driverID] = car
            let card: Driver
            if let driver = tripDrivers[car.driverID] {
                card = driver
            } else if let cached = cards[car.driverID] {
                card = cached
            } else {
                card = await directory.card(for: car.driverID)
            }
            cards[car.driverID] = card
            cars.append(
                OperatorCar(
                    driverID: car.driverID, driver: card, location: car.location, online: car.online,
                    degraded: car.degraded, tripID: car.tripID, tripState: car.tripState))
        }
        if cards.count > 2 * max(64, cars.count) { cards = cards.filter { positions[$0.key] != nil } }
        var active: [OperatorTrip] = []
        for record in records {
            active.append(
                OperatorTrip(record, etaSeconds: await eta(record, car: record.driverID.flatMap { positions[$0] })))
        }
        var ended: [String: OperatorTrip] = [:]
        let activeIDs = Set(records.map(\.trip.id))
        for id in known.tripIDs where !activeIDs.contains(id) {
            if let record = try? await trips.record(id: id) { ended[id] = OperatorTrip(record, etaSeconds: nil) }
        }
        return (cars, active, ended)
    }

    /// The server's ETA for `record` from its driver's position in this reading, as the rider's stream has it:
    /// to the pickup while assigned, to the dropoff on the trip, none otherwise. Unchanged position and
    /// trip reuse the last answer, so an idle tick routes nothing.
    private func eta(_ record: TripRecord, car: FleetSnapshot.Car?) async -> Int? {
        guard let car, record.trip.state == .driverAssigned || record.trip.state == .onTrip else { return nil }
        if let known = state.trip(record.trip.id), known.version == record.trip.version,
            state.car(car.driverID)?.location.seq == car.location.seq
        {
            return known.etaSeconds
        }
        let target = record.trip.state == .onTrip ? record.trip.dropoff : record.trip.pickup
        let client = await fleet.client(driverID: car.driverID)
        return routing.estimator(for: .driver(car.driverID, client: client, at: car.location.coordinate))
            .seconds(from: car.location.coordinate, to: target)
    }

    /// The road from `old`'s position to `new`'s, encoded, or nil for a straight glide: no road near, or a
    /// path the network refuses (a U-turn, a detour); a few metres back along the road is jitter, no path.
    static func roadPath(
        _ roads: RoadNetwork, radius: Double, from old: OperatorCar, to new: OperatorCar,
        snaps: inout [String: RoadSnap]
    ) -> String? {
        let start =
            snaps[old.driverID] ?? roads.snap(old.location.coordinate, heading: old.location.heading, radius: radius)
        guard let end = roads.snap(new.location.coordinate, heading: new.location.heading, radius: radius) else {
            snaps[new.driverID] = nil
            return nil
        }
        snaps[new.driverID] = end
        guard let start, !roads.isJitterBack(from: start, to: end), let path = roads.path(from: start, to: end) else {
            return nil
        }
        return Polyline.encode(path)
    }

    static func message(_ frame: OperatorServerFrame, _ kind: BusMessage.Kind) -> BusMessage {
        BusMessage(kind: kind, text: (try? HailJSON.encodeString(frame)) ?? #"{"type":"hello"}"#)
    }
}
