import Foundation
import HailAppSeams
import HailClient
import HailCore
import HailProtocol

/// The rider's live REST API, logging every call's outcome with the answer's trip, version and state.
struct LoggingTripAPI: TripAPI {
    let inner: RiderHTTPAPI
    let rest: RESTOutcome

    func estimates(pickup: Coordinate, dropoff: Coordinate) async throws -> [Estimate] {
        try await rest.run("estimates", tripID: nil) { try await inner.estimates(pickup: pickup, dropoff: dropoff) }
    }

    func requestTrip(_ request: TripRequest, idempotencyKey: UUID) async throws -> Trip {
        try await rest.run("requestTrip", tripID: nil, trip: { $0 }) {
            try await inner.requestTrip(request, idempotencyKey: idempotencyKey)
        }
    }

    func activeTrip() async throws -> Trip? {
        try await rest.run("activeTrip", tripID: nil, trip: { $0 }) { try await inner.activeTrip() }
    }

    func trip(id: String) async throws -> Trip {
        try await rest.run("trip", tripID: id, trip: { $0 }) { try await inner.trip(id: id) }
    }

    func cancel(tripID: String, idempotencyKey: UUID) async throws -> Trip {
        try await rest.run("cancel", tripID: tripID, trip: { $0 }) {
            try await inner.cancel(tripID: tripID, idempotencyKey: idempotencyKey)
        }
    }

    func checkIn(tripID: String, answer: CheckInAnswer, idempotencyKey: UUID) async throws -> Trip {
        try await rest.run("checkIn", tripID: tripID, trip: { $0 }) {
            try await inner.checkIn(tripID: tripID, answer: answer, idempotencyKey: idempotencyKey)
        }
    }

    func latestClockSample() async -> ServerClock.Sample? { await inner.latestClockSample() }

    func register(deviceToken: DeviceRegistration) async throws { try await inner.register(deviceToken: deviceToken) }

    func register(liveActivityToken: LiveActivityRegistration, for tripID: String) async throws {
        try await inner.register(liveActivityToken: liveActivityToken, for: tripID)
    }

    func config() async throws -> ClientConfig? {
        try await rest.run("config", tripID: nil) { try await inner.config() }
    }

    func sendTelemetry(_ batch: TelemetryBatch) async throws { try await inner.sendTelemetry(batch) }
}
