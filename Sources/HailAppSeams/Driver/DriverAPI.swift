import Foundation
import HailCore
import HailProtocol

/// The driver's REST calls, as the runtime needs them; `DriverHTTPAPI` in HailClient is the live one.
///
/// Errors follow `CallError`, the seams' one contract: a refusal retires the action, anything retryable is tried
/// again under the same key; an error of another type counts as no answer.
public protocol DriverAPI: Sendable {
    /// `POST /v1/drivers/me/status`.
    func setStatus(_ status: DriverStatusRequest) async throws
    /// `POST /v1/drivers/me/locations`: one batch over HTTP when the stream is down.
    func sendLocations(_ batch: LocationBatch) async throws -> LocationAck
    /// `GET /v1/drivers/me/trip`: the active trip, or nil.
    func activeTrip() async throws -> Trip?
    /// `GET /v1/trips/{id}`: a trip assigned to this driver, in any state, including one that has ended.
    func trip(id: String) async throws -> Trip
    /// `POST /v1/trips/{id}/accept` under `key`.
    func accept(tripID: String, key: UUID) async throws -> Trip
    /// `POST /v1/trips/{id}/decline`.
    func decline(tripID: String) async throws
    /// `POST /v1/trips/{id}/events` with `event` under `key`; with `ended`, the fixes of the trip the server has not
    /// acknowledged (`TripEventRequest.path`).
    func report(_ event: TripEventKind, tripID: String, key: UUID, path: [LocationPoint]?) async throws -> Trip
    /// `POST /v1/trips/{id}/events` with `started` and the rider's pickup PIN as the driver entered it, under `key`.
    func start(tripID: String, key: UUID, pin: String?) async throws -> Trip
    /// `POST /v1/trips/{id}/cancel` under `key`.
    func cancel(tripID: String, key: UUID) async throws -> Trip
    /// `GET /v1/config`: the flags of this driver's cohort, or nil from a server that does not know the route.
    func config() async throws -> ClientConfig?
    /// `POST /v1/telemetry`.
    func sendTelemetry(_ batch: TelemetryBatch) async throws
    /// `PUT /v1/trips/{id}/route`: the route the driver's navigation follows on the trip under way.
    func reportRoute(tripID: String, _ report: TripRouteReport) async throws
}

extension DriverAPI {
    /// For conformers written before pickup PINs: `started` without one (a trip that requires one refuses it).
    public func start(tripID: String, key: UUID, pin: String?) async throws -> Trip {
        try await report(.started, tripID: tripID, key: key, path: nil)
    }

    /// No flags: an API without them (a fake, an old server) leaves the model on the defaults.
    public func config() async throws -> ClientConfig? { nil }

    /// No telemetry: an API without it drops the batch.
    public func sendTelemetry(_ batch: TelemetryBatch) async throws {}

    /// No route reports: an API without them (a fake, an old server) refuses, so the model stops sending them.
    public func reportRoute(tripID: String, _ report: TripRouteReport) async throws {
        throw CallError.unsupported("this DriverAPI takes no route of trip \(tripID)")
    }

    /// For conformers written before trips could be read by id: refused, so the model drops a trip the server
    /// no longer reports as active instead of showing how it ended.
    public func trip(id: String) async throws -> Trip {
        throw CallError.unsupported("this DriverAPI cannot read trip \(id) by id")
    }
}
