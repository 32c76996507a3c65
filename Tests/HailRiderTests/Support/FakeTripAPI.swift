import Foundation
import HailCore
import HailProtocol
import HailRider
import HailTestSupport

/// A tiny trip server behind the `TripAPI` seam: idempotent requests, scripted timeouts, and answers
/// that can be held back (a slow network) so they arrive after newer stream frames.
actor FakeTripAPI: TripAPI {
    /// What one request attempt does.
    enum Attempt: Sendable {
        /// The server creates (or replays) the trip but the answer is lost: the phone sees a timeout.
        case timeoutAfterCommit
        /// The request never reaches the server.
        case timeoutBeforeCommit
        /// A normal answer.
        case answer
    }

    private(set) var trips: [String: Trip] = [:]
    private var activeID: String?
    private var byKey: [UUID: String] = [:]
    private(set) var requestKeys: [UUID] = []
    private(set) var cancelKeys: [UUID] = []
    private(set) var tripsCreated = 0
    private(set) var calls: [String] = []
    private var requestScript: [Attempt] = []
    private var unreachable = false
    private var holdActiveAnswers = false
    private var clockSample: ServerClock.Sample?
    /// Device registrations received, oldest first.
    private(set) var devices: [DeviceRegistration] = []
    /// Live Activity registrations received, oldest first.
    private(set) var activities: [(tripID: String, token: String)] = []
    /// Answers the next registrations with this refusal.
    private var refuseRegistrations: APIError?
    /// Answers the next cancels with this refusal.
    private var refuseCancels: APIError?
    /// Held `activeTrip()` answers: resume one to let it arrive.
    let heldActive = Mailbox<CheckedContinuation<Void, Never>>()

    init(trip: Trip? = nil) {
        if let trip {
            trips[trip.id] = trip
            activeID = trip.state.isActive ? trip.id : nil
        }
    }

    /// The server's trip changes (a driver's action): stored, and the rider's active one while live.
    func put(_ trip: Trip) {
        trips[trip.id] = trip
        activeID = trip.state.isActive ? trip.id : (activeID == trip.id ? nil : activeID)
    }

    func scriptRequests(_ attempts: [Attempt]) { requestScript = attempts }
    func setUnreachable(_ value: Bool) { unreachable = value }
    /// The server time that the next answers report, as `X-Hail-Server-Time` would.
    func reportServerTime(_ sample: ServerClock.Sample?) { clockSample = sample }
    func latestClockSample() async -> ServerClock.Sample? { clockSample }
    func holdActive(_ value: Bool) { holdActiveAnswers = value }
    func count(_ call: String) -> Int { calls.filter { $0 == call }.count }

    func estimates(pickup: Coordinate, dropoff: Coordinate) async throws -> [Estimate] {
        calls.append("estimates")
        try reach()
        return [
            Estimate(productID: .economy, fare: Money(amountMinor: 1850, currency: "EUR"), etaSeconds: 240),
            Estimate(productID: .xl, fare: Money(amountMinor: 2790, currency: "EUR"), etaSeconds: 420),
        ]
    }

    func requestTrip(_ request: TripRequest, idempotencyKey: UUID) async throws -> Trip {
        calls.append("request")
        requestKeys.append(idempotencyKey)
        let attempt = requestScript.isEmpty ? .answer : requestScript.removeFirst()
        if attempt == .timeoutBeforeCommit { throw URLError(.timedOut) }
        let trip: Trip
        if let id = byKey[idempotencyKey], let replay = trips[id] {
            trip = replay
        } else {
            tripsCreated += 1
            trip = Trip(
                id: "trip-\(tripsCreated)", state: .searching, pickup: request.pickup, dropoff: request.dropoff,
                productID: request.productID, version: 1)
            byKey[idempotencyKey] = trip.id
            put(trip)
        }
        if attempt == .timeoutAfterCommit { throw URLError(.timedOut) }
        return trip
    }

    func activeTrip() async throws -> Trip? {
        calls.append("active")
        try reach()
        let answer = activeID.flatMap { trips[$0] }
        if holdActiveAnswers {
            // The answer was computed now but reaches the phone only when the test lets it.
            await withCheckedContinuation { continuation in Task { await heldActive.put(continuation) } }
        }
        return answer
    }

    func trip(id: String) async throws -> Trip {
        calls.append("trip")
        try reach()
        guard let trip = trips[id] else { throw CallError.refused(.notFound("no trip \(id)")) }
        return trip
    }

    func cancel(tripID: String, idempotencyKey: UUID) async throws -> Trip {
        calls.append("cancel")
        cancelKeys.append(idempotencyKey)
        try reach()
        if let refuseCancels { throw CallError.refused(refuseCancels) }
        guard var trip = trips[tripID] else { throw CallError.refused(.notFound("no trip \(tripID)")) }
        guard [.searching, .driverAssigned, .driverArrived].contains(trip.state) else {
            throw CallError.refused(.invalidState("a trip that has started cannot be cancelled"))
        }
        trip.state = .cancelled
        trip.version += 1
        put(trip)
        return trip
    }

    /// Check-in keys received, oldest first.
    private(set) var checkInKeys: [UUID] = []

    /// Like the server: the trip under way with an alert gets the answer, stamped with the alert's time + 20 s.
    func checkIn(tripID: String, answer: CheckInAnswer, idempotencyKey: UUID) async throws -> Trip {
        calls.append("checkIn")
        checkInKeys.append(idempotencyKey)
        try reach()
        guard var trip = trips[tripID], trip.state == .onTrip, var alert = trip.alert else {
            throw CallError.refused(.invalidState("there is no trip alert to answer"))
        }
        alert.answer = answer
        alert.answeredAt = alert.raisedAt.addingTimeInterval(20)
        trip.alert = alert
        trip.version += 1
        put(trip)
        return trip
    }

    func refuseRegistrations(with error: APIError?) { refuseRegistrations = error }
    func refuseCancels(with error: APIError?) { refuseCancels = error }

    func register(deviceToken: DeviceRegistration) async throws {
        calls.append("registerDevice")
        try reach()
        if let refuseRegistrations { throw CallError.refused(refuseRegistrations) }
        devices.append(deviceToken)
    }

    func register(liveActivityToken: LiveActivityRegistration, for tripID: String) async throws {
        calls.append("registerLiveActivity")
        try reach()
        if let refuseRegistrations { throw CallError.refused(refuseRegistrations) }
        activities.append((tripID, liveActivityToken.token))
    }

    /// What `GET /v1/config` answers; nil is a server without the route.
    private var flags: ClientConfig?
    /// Telemetry batches received, oldest first.
    private(set) var telemetry: [TelemetryBatch] = []

    func setFlags(_ config: ClientConfig?) { flags = config }

    func config() async throws -> ClientConfig? {
        calls.append("config")
        try reach()
        return flags
    }

    func sendTelemetry(_ batch: TelemetryBatch) async throws {
        calls.append("telemetry")
        try reach()
        telemetry.append(batch)
    }

    private func reach() throws {
        if unreachable { throw URLError(.notConnectedToInternet) }
    }
}
