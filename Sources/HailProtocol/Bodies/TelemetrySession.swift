import Foundation
import HailCore

/// An app session's identity for telemetry: a new id at every launch, the app's version and hardware model, and
/// whether the session before ended in a crash (MetricKit's crash diagnostics on iOS, or a clean-exit marker the
/// app clears when it terminates normally). The rider's and driver's models take one to send telemetry.
public struct TelemetrySession: Sendable, Hashable {
    /// The session's id, a UUID.
    public var id: String
    /// The app's version, such as `1.4.0`.
    public var appVersion: String
    /// The hardware model, such as `iPhone15,2`.
    public var deviceModel: String
    /// Whether the session before this one ended in a crash.
    public var previousSessionCrashed: Bool
    /// When to sample and send.
    public var log: TelemetryLog.Configuration

    /// A new session.
    public init(
        id: UUID = UUID(), appVersion: String, deviceModel: String, previousSessionCrashed: Bool,
        log: TelemetryLog.Configuration = TelemetryLog.Configuration()
    ) {
        self.id = id.uuidString.lowercased()
        self.appVersion = appVersion
        self.deviceModel = deviceModel
        self.previousSessionCrashed = previousSessionCrashed
        self.log = log
    }

    /// The body of `POST /v1/telemetry` for `batch`.
    public func body(_ batch: TelemetryLog.Batch) -> TelemetryBatch {
        TelemetryBatch(
            sessionID: id, startsSession: batch.startsSession,
            previousSessionCrashed: previousSessionCrashed, appVersion: appVersion,
            deviceModel: deviceModel, samples: batch.samples)
    }
}
