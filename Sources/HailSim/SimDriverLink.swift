import Foundation
import HailClient
import HailCore
import HailDriver
import HailProtocol

/// The driver's live transports behind the runtime's seams, wrapped for the same reason as `SimRiderLink`;
/// transport errors become `DriverCallFailure`s so the runtime tells refusals from silence.
struct SimDriverLink: DriverAPI, DriverChannel {
    let api: DriverHTTPAPI
    let channel: DriverLiveChannel

    /// A `ClientError` as the driver runtime reads failures.
    struct Failure: DriverCallFailure {
        let error: ClientError
        var isRejection: Bool { error.isRejection }
        var isTransport: Bool { error.isTransport }
        var message: String { error.message }
    }

    private func mapped<T>(_ work: () async throws(ClientError) -> T) async throws(Failure) -> T {
        do { return try await work() } catch { throw Failure(error: error) }
    }

    func setStatus(_ status: DriverStatusRequest) async throws {
        try await mapped { () async throws(ClientError) in try await api.setStatus(status) }
    }

    func sendLocations(_ batch: LocationBatch) async throws -> LocationAck {
        try await mapped { () async throws(ClientError) in try await api.sendLocations(batch) }
    }

    func activeTrip() async throws -> Trip? {
        try await mapped { () async throws(ClientError) in try await api.activeTrip() }
    }

    func trip(id: String) async throws -> Trip {
        try await mapped { () async throws(ClientError) in try await api.trip(id: id) }
    }

    func accept(tripID: String, key: UUID) async throws -> Trip {
        try await mapped { () async throws(ClientError) in try await api.accept(tripID: tripID, key: key) }
    }

    func decline(tripID: String) async throws {
        try await mapped { () async throws(ClientError) in try await api.decline(tripID: tripID) }
    }

    func report(_ event: TripEventKind, tripID: String, key: UUID) async throws -> Trip {
        try await mapped { () async throws(ClientError) in try await api.report(event, tripID: tripID, key: key) }
    }

    func cancel(tripID: String, key: UUID) async throws -> Trip {
        try await mapped { () async throws(ClientError) in try await api.cancel(tripID: tripID, key: key) }
    }

    func config() async throws -> ClientConfig? {
        try await mapped { () async throws(ClientError) in try await api.config() }
    }

    func sendTelemetry(_ batch: TelemetryBatch) async throws {
        try await mapped { () async throws(ClientError) in try await api.sendTelemetry(batch) }
    }

    func connect() async throws -> AsyncStream<DriverServerFrame> {
        do { return try await channel.connect() } catch { throw Failure(error: error) }
    }

    func send(_ batch: LocationBatch) async throws {
        do { try await channel.send(batch) } catch { throw Failure(error: error) }
    }

    func disconnect() async { await channel.disconnect() }
}
