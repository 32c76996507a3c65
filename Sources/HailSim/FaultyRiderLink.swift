import Foundation
import HailClient
import HailCore
import HailProtocol
import HailRider

/// The rider's real transports behind the model's seams, through the rider's network conditions.
struct FaultyRiderLink: TripAPI, LiveTripChannel {
    let api: RiderHTTPAPI
    let channel: RiderLiveChannel
    let faults: FaultInjector

    func estimates(pickup: Coordinate, dropoff: Coordinate) async throws -> [Estimate] {
        try await faults.request { try await api.estimates(pickup: pickup, dropoff: dropoff) }
    }

    func requestTrip(_ request: TripRequest, idempotencyKey: UUID) async throws -> Trip {
        try await faults.request { try await api.requestTrip(request, idempotencyKey: idempotencyKey) }
    }

    func activeTrip() async throws -> Trip? {
        try await faults.request { try await api.activeTrip() }
    }

    func trip(id: String) async throws -> Trip {
        try await faults.request { try await api.trip(id: id) }
    }

    func cancel(tripID: String, idempotencyKey: UUID) async throws -> Trip {
        try await faults.request { try await api.cancel(tripID: tripID, idempotencyKey: idempotencyKey) }
    }

    func latestClockSample() async -> ServerClock.Sample? { await api.latestClockSample() }

    func register(deviceToken: DeviceRegistration) async throws {
        try await faults.request { try await api.register(deviceToken: deviceToken) }
    }

    func register(liveActivityToken: LiveActivityRegistration, for tripID: String) async throws {
        try await faults.request { try await api.register(liveActivityToken: liveActivityToken, for: tripID) }
    }

    func config() async throws -> ClientConfig? {
        try await faults.request { try await api.config() }
    }

    func sendTelemetry(_ batch: TelemetryBatch) async throws {
        try await faults.request { try await api.sendTelemetry(batch) }
    }

    func open(tripID: String, after seq: Int64?) async throws -> AsyncThrowingStream<RiderServerFrame, any Error> {
        try await open(tripID: tripID, after: seq, version: nil)
    }

    func open(tripID: String, after seq: Int64?, version: Int?) async throws
        -> AsyncThrowingStream<RiderServerFrame, any Error>
    {
        let inner = try await faults.open { try await channel.open(tripID: tripID, after: seq, version: version) }
        return faults.stream(
            inner,
            reorderable: { frame in
                if case .driverMoved = frame { return true }
                return false
            },
            // Cancelling the reader ends the real stream's iteration, which closes its socket.
            close: {})
    }
}
