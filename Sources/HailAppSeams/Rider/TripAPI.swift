import Foundation
import HailCore
import HailProtocol

/// The rider's REST calls, as the model needs them. `RiderHTTPAPI` in HailClient is the live one.
///
/// Errors follow `CallError`, the seams' one contract: a refusal (`isRejection`) is the server refusing the
/// request (retrying the same body cannot help, so the model shows it); anything else means no answer the
/// request could stand on (a timeout, no network, a server failing), and a retry with the same idempotency key
/// may succeed.
public protocol TripAPI: Sendable {
    /// The price and pickup time of each product between two points.
    func estimates(pickup: Coordinate, dropoff: Coordinate) async throws -> [Estimate]
    /// Asks for a ride; the key is the same on every retry of one tap, so the server creates one trip.
    func requestTrip(_ request: TripRequest, idempotencyKey: UUID) async throws -> Trip
    /// The rider's active trip, or nil when there is none.
    func activeTrip() async throws -> Trip?
    /// One trip by id, with the driver's last published position (the polling fallback).
    func trip(id: String) async throws -> Trip
    /// Cancels a trip that has not started; the key is the same on every retry of one tap.
    func cancel(tripID: String, idempotencyKey: UUID) async throws -> Trip
    /// Answers the trip's safety alert ("I'm OK" or "get help"); the key is the same on every retry of one tap.
    func checkIn(tripID: String, answer: CheckInAnswer, idempotencyKey: UUID) async throws -> Trip
    /// The timing of the latest answer that carried the server's clock, or nil; the model feeds it to
    /// its `ServerClock` so ages are right even before a stream's `hello`.
    func latestClockSample() async -> ServerClock.Sample?
    /// Registers the phone's APNs device token (`PUT /v1/devices/me`), replacing any older one.
    func register(deviceToken: DeviceRegistration) async throws
    /// Registers the push token of the Live Activity the app started for `tripID`
    /// (`PUT /v1/trips/{id}/live-activity`).
    func register(liveActivityToken: LiveActivityRegistration, for tripID: String) async throws
    /// The flags of this rider's cohort (`GET /v1/config`), or nil from a server that does not know the route.
    func config() async throws -> ClientConfig?
    /// Sends a batch of telemetry (`POST /v1/telemetry`).
    func sendTelemetry(_ batch: TelemetryBatch) async throws
}

extension TripAPI {
    /// No samples: an API that does not report the server's clock leaves the stream's `hello` as the source.
    public func latestClockSample() async -> ServerClock.Sample? { nil }

    /// No push: an API without registration (a fake, an old server) ignores the token.
    public func register(deviceToken: DeviceRegistration) async throws {}

    /// No push: an API without registration ignores the token.
    public func register(liveActivityToken: LiveActivityRegistration, for tripID: String) async throws {}

    /// No flags: an API without them (a fake, an old server) leaves the model on the defaults.
    public func config() async throws -> ClientConfig? { nil }

    /// No check-in: an API without it (a fake, an old server) refuses, so the app shows it was not sent.
    public func checkIn(tripID: String, answer: CheckInAnswer, idempotencyKey: UUID) async throws -> Trip {
        throw CallError.unsupported("this server takes no check-in")
    }

    /// No telemetry: an API without it drops the batch.
    public func sendTelemetry(_ batch: TelemetryBatch) async throws {}
}
