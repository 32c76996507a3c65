import Foundation
import HailClient
import HailCore
import HailProtocol
import HailRider

/// The rider's live transports behind the model's seams.
///
/// A wrapper rather than `extension RiderHTTPAPI: TripAPI {}`: the `hail` executable declares that
/// conformance and imports this module, and two declarations of one conformance do not compile.
struct SimRiderLink: TripAPI, LiveTripChannel {
    let api: RiderHTTPAPI
    let channel: RiderLiveChannel

    func estimates(pickup: Coordinate, dropoff: Coordinate) async throws -> [Estimate] {
        try await api.estimates(pickup: pickup, dropoff: dropoff)
    }

    func requestTrip(_ request: TripRequest, idempotencyKey: UUID) async throws -> Trip {
        try await api.requestTrip(request, idempotencyKey: idempotencyKey)
    }

    func activeTrip() async throws -> Trip? { try await api.activeTrip() }

    func trip(id: String) async throws -> Trip { try await api.trip(id: id) }

    func cancel(tripID: String, idempotencyKey: UUID) async throws -> Trip {
        try await api.cancel(tripID: tripID, idempotencyKey: idempotencyKey)
    }

    func latestClockSample() async -> ServerClock.Sample? { await api.latestClockSample() }

    func register(deviceToken: DeviceRegistration) async throws { try await api.register(deviceToken: deviceToken) }

    func register(liveActivityToken: LiveActivityRegistration, for tripID: String) async throws {
        try await api.register(liveActivityToken: liveActivityToken, for: tripID)
    }

    func config() async throws -> ClientConfig? { try await api.config() }

    func sendTelemetry(_ batch: TelemetryBatch) async throws { try await api.sendTelemetry(batch) }

    func open(tripID: String, after seq: Int64?) async throws -> AsyncThrowingStream<RiderServerFrame, any Error> {
        try await channel.open(tripID: tripID, after: seq)
    }

    func open(tripID: String, after seq: Int64?, version: Int?) async throws
        -> AsyncThrowingStream<RiderServerFrame, any Error>
    {
        try await channel.open(tripID: tripID, after: seq, version: version)
    }
}
