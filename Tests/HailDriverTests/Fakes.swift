import Foundation
import HailCore
import HailDriver
import HailProtocol
import Synchronization

extension CallError {
    /// The server refusing an action, as a 403 would.
    static func refusal(_ message: String) -> CallError { .refused(APIError(code: .forbidden, message: message)) }

    /// No answer at all: what a tunnel does to every call.
    static let noNetwork = CallError.noAnswer("the network is unreachable")
}

/// A scripted driver API that records what it was asked.
actor FakeDriverAPI: DriverAPI {
    private(set) var statuses: [DriverStatusRequest] = []
    private(set) var declines: [String] = []
    private(set) var accepts: [(tripID: String, key: UUID)] = []
    private(set) var reads: [String] = []
    var active: Trip?
    /// Every trip by id, as `GET /v1/trips/{id}` answers: the active one and those that ended.
    var trips: [String: Trip] = [:]
    var refuseAcceptWith: String?
    var unreachable = false
    /// Location batches and trip events the server took, in the order it took them ("locations 3", "ended").
    private(set) var log: [String] = []
    /// The path each "ended" carried, in order.
    private(set) var endedPaths: [[LocationPoint]?] = []
    /// The PINs sent with each `started`, in order.
    private(set) var startPINs: [String?] = []
    /// Every route report tried, in order, and how many to fail (no answer) before taking one.
    private(set) var routeReports: [(tripID: String, report: TripRouteReport)] = []
    var routeFailures = 0

    func failRoutes(_ count: Int) { routeFailures = count }

    func reportRoute(tripID: String, _ report: TripRouteReport) throws {
        routeReports.append((tripID, report))
        if routeFailures > 0 {
            routeFailures -= 1
            throw CallError.noNetwork
        }
    }

    init(active: Trip? = nil) {
        self.active = active
        if let active { trips[active.id] = active }
    }

    /// The trip changed on the server without a word to the driver: `GET /v1/drivers/me/trip` answers it while
    /// it is active, 204 once it has ended.
    func changedUnseen(_ trip: Trip) {
        trips[trip.id] = trip
        active = trip.state.isActive ? trip : nil
    }

    /// The trip is no longer this driver's: reading it is refused, as a 403 would be.
    func reassign(_ tripID: String) {
        trips[tripID] = nil
        if active?.id == tripID { active = nil }
    }

    func refuseAccept(_ message: String) { refuseAcceptWith = message }

    func setUnreachable(_ value: Bool) { unreachable = value }

    /// Status reports to answer 503 (with `Retry-After`) before taking one, and every report tried, in order.
    private var statusFailures: (count: Int, retryAfter: TimeInterval?) = (0, nil)
    private(set) var statusAttempts: [DriverStatusRequest] = []

    func failStatuses(_ count: Int, retryAfter: TimeInterval?) { statusFailures = (count, retryAfter) }

    func setStatus(_ status: DriverStatusRequest) throws {
        statusAttempts.append(status)
        if statusFailures.count > 0 {
            statusFailures.count -= 1
            throw CallError.answered(status: 503, error: nil, retryAfter: statusFailures.retryAfter)
        }
        statuses.append(status)
    }

    /// True while location batches get no answer but trip actions do (a server whose Redis is away: its trip changes
    /// commit in PostgreSQL).
    var locationsUnanswered = false

    func failLocations(_ value: Bool) { locationsUnanswered = value }

    /// The offer the answers to location batches carry, as a server's does while the driver holds one.
    private(set) var offerInAnswers: TripOffer?

    func answerLocations(offering offer: TripOffer?) { offerInAnswers = offer }

    func sendLocations(_ batch: LocationBatch) throws -> LocationAck {
        if unreachable || locationsUnanswered { throw CallError.noNetwork }
        log.append("locations \(batch.points.count)")
        return LocationAck(seq: batch.seq, offer: offerInAnswers)
    }

    func activeTrip() -> Trip? { active }

    func trip(id: String) throws -> Trip {
        reads.append(id)
        guard let trip = trips[id] else { throw CallError.refusal("trip \(id) is not assigned to you") }
        return trip
    }

    func accept(tripID: String, key: UUID) throws -> Trip {
        accepts.append((tripID, key))
        if let refuseAcceptWith { throw CallError.refusal(refuseAcceptWith) }
        return Fixture.trip(tripID, .driverAssigned, version: 2)
    }

    func decline(tripID: String) { declines.append(tripID) }

    func start(tripID: String, key: UUID, pin: String?) throws -> Trip {
        startPINs.append(pin)
        return try report(.started, tripID: tripID, key: key, path: nil)
    }

    func report(_ event: TripEventKind, tripID: String, key: UUID, path: [LocationPoint]?) throws -> Trip {
        if unreachable { throw CallError.noNetwork }
        log.append(event.rawValue)
        if event == .ended { endedPaths.append(path) }
        return Fixture.trip(
            tripID, event == .arrived ? .driverArrived : event == .started ? .onTrip : .completed,
            version: event == .ended ? 10 : 9)
    }

    func cancel(tripID: String, key: UUID) -> Trip { Fixture.trip(tripID, .searching, version: 9) }

    /// What `GET /v1/config` answers; nil is a server without the route.
    private(set) var flags: ClientConfig?
    private(set) var configReads = 0
    /// Telemetry batches received, oldest first.
    private(set) var telemetry: [TelemetryBatch] = []

    func setFlags(_ config: ClientConfig?) { flags = config }

    func config() throws -> ClientConfig? {
        configReads += 1
        if unreachable { throw CallError.noNetwork }
        return flags
    }

    func sendTelemetry(_ batch: TelemetryBatch) throws {
        if unreachable { throw CallError.noNetwork }
        telemetry.append(batch)
    }
}

enum Fixture {
    static let origin = Date(timeIntervalSince1970: 1_800_000_000)
    static let pickup = Coordinate(lat: 43.7396, lng: 7.4276)
    static let dropoff = Coordinate(lat: 43.7314, lng: 7.4197)

    static func trip(_ id: String, _ state: TripState, version: Int) -> Trip {
        Trip(id: id, state: state, pickup: pickup, dropoff: dropoff, productID: .economy, version: version)
    }
}
