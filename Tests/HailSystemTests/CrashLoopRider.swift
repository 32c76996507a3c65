import Foundation
import HailAppStore
import HailClient
import HailCore
import HailDriver
import HailProtocol
import HailRider
import HailTime
import Observation
import Synchronization

/// One trip version a client saw: which trip, which version, in which state.
struct TripSighting: Sendable, Hashable, CustomStringConvertible {
    let tripID: String
    let version: Int
    let state: TripState

    init(_ trip: Trip) {
        tripID = trip.id
        version = trip.version
        state = trip.state
    }

    var description: String { "\(tripID)@\(version) \(state.rawValue)" }
}

/// Every trip the rider's transports delivered, stale or not: what the server told this client.
final class SightingLog: Sendable {
    private let sightings = Mutex<[TripSighting]>([])

    @discardableResult
    func saw(_ trip: Trip) -> Trip {
        sightings.withLock { $0.append(TripSighting(trip)) }
        return trip
    }

    var all: [TripSighting] { sightings.withLock { $0 } }
}

/// The live REST API, noting every trip it hands the model.
struct RecordingTripAPI: TripAPI {
    let inner: RiderHTTPAPI
    let log: SightingLog

    func estimates(pickup: Coordinate, dropoff: Coordinate) async throws -> [Estimate] {
        try await inner.estimates(pickup: pickup, dropoff: dropoff)
    }

    func requestTrip(_ request: TripRequest, idempotencyKey: UUID) async throws -> Trip {
        log.saw(try await inner.requestTrip(request, idempotencyKey: idempotencyKey))
    }

    func activeTrip() async throws -> Trip? {
        try await inner.activeTrip().map { log.saw($0) }
    }

    func trip(id: String) async throws -> Trip {
        log.saw(try await inner.trip(id: id))
    }

    func cancel(tripID: String, idempotencyKey: UUID) async throws -> Trip {
        log.saw(try await inner.cancel(tripID: tripID, idempotencyKey: idempotencyKey))
    }

    func latestClockSample() async -> ServerClock.Sample? { await inner.latestClockSample() }
}

/// The live stream, noting every `tripUpdated` it hands the model.
struct RecordingLiveChannel: LiveTripChannel {
    let inner: RiderLiveChannel
    let log: SightingLog

    func open(tripID: String, after seq: Int64?) async throws -> AsyncThrowingStream<RiderServerFrame, any Error> {
        let frames = try await inner.open(tripID: tripID, after: seq)
        let log = self.log
        return AsyncThrowingStream { continuation in
            let relay = Task {
                do {
                    for try await frame in frames {
                        if case .tripUpdated(let trip) = frame { log.saw(trip) }
                        continuation.yield(frame)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            // The model ending its iteration ends the relay's, which closes the socket.
            continuation.onTermination = { _ in relay.cancel() }
        }
    }
}

/// One rider phone in the crash loop: a `RiderModel` on the live transports and a SQLite cursor file,
/// requesting rides one after another (cancelling some), with a record of everything it saw and applied.
@MainActor
final class CrashLoopRider {
    let id: String
    let model: RiderModel
    let sightings: SightingLog
    let pickup: Coordinate
    let dropoff: Coordinate
    /// The trip versions the model applied, in order (observed after each change, so a subsequence
    /// when two changes land in one main-actor turn).
    private(set) var applied: [TripSighting] = []
    /// The driver positions the model applied, in order: trip and seq.
    private(set) var positions: [(tripID: String, seq: Int64)] = []
    /// Rides that ended, by trip id, with the state the rider saw them end in.
    private(set) var finished: [String: TripState] = [:]
    /// Trips this rider set out to cancel.
    private(set) var cancelTapped: Set<String> = []
    private let index: Int
    private let cursors: SQLiteCursorStore
    private let timeline = Timeline.system()

    init(index: Int, server: URL, token: String, connector: SocketConnector, cursorPath: String, pickup: Coordinate)
        async throws
    {
        self.index = index
        id = "rider-\(index)"
        self.pickup = pickup
        // 200 m north: a short ride, so several fit in the loop.
        dropoff = Coordinate(lat: pickup.lat + 0.0018, lng: pickup.lng)
        sightings = SightingLog()
        cursors = try await SQLiteCursorStore.open(path: cursorPath)
        let transport = HTTPTransport(baseURL: server, token: token, timeout: 5)
        model = RiderModel(
            api: RecordingTripAPI(inner: RiderHTTPAPI(transport: transport), log: sightings),
            channel: RecordingLiveChannel(
                inner: RiderLiveChannel(baseURL: server, token: token, connector: connector), log: sightings),
            cursors: cursors)
        follow()
    }

    /// Requests ride after ride until `until`, each followed to its end; every third ride is cancelled
    /// once a driver is on the way. Returns when the last ride has ended.
    func run(until: Date) async {
        model.screenVisibilityChanged(true)
        await model.launch()
        var ride = 0
        while !Task.isCancelled, timeline.now() < until || model.trip?.state.isActive == true {
            if model.trip?.state.isActive != true {
                await model.requestRide(pickup: pickup, dropoff: dropoff, product: .economy)
                guard model.trip?.state.isActive == true else {
                    // Refused or unreachable (the server is down): the rider taps again a second later.
                    try? await timeline.sleep(until: timeline.now().addingTimeInterval(1))
                    continue
                }
            }
            ride += 1
            await followToTheEnd(cancelling: (index + ride) % 3 == 0)
        }
    }

    private func followToTheEnd(cancelling: Bool) async {
        var wantsCancel = cancelling
        for await screen in model.changes() {
            if wantsCancel, screen.phase == .driverAssigned, screen.canCancel, let tripID = screen.tripID {
                wantsCancel = false
                cancelTapped.insert(tripID)
                Task { await model.cancel() }
            }
            switch screen.phase {
            case .completed, .cancelled, .noDriversFound:
                if let trip = model.trip { finished[trip.id] = trip.state }
                return
            default:
                continue
            }
        }
    }

    func stop() async {
        model.stop()
        await cursors.close()
    }

    /// The stored cursor of `tripID`.
    func cursor(tripID: String) async -> Int64? { try? await cursors.load(tripID: tripID) }

    private func follow() {
        withObservationTracking {
            _ = model.trip
            _ = model.driverLocation
        } onChange: { [weak self] in
            Task { @MainActor in
                self?.note()
                self?.follow()
            }
        }
    }

    private func note() {
        if let trip = model.trip, applied.last != TripSighting(trip) { applied.append(TripSighting(trip)) }
        if let location = model.driverLocation, let tripID = model.trip?.id,
            positions.last.map({ $0.tripID != tripID || $0.seq != location.seq }) ?? true
        {
            positions.append((tripID, location.seq))
        }
    }
}
