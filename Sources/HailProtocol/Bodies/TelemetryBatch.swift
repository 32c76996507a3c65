import HailCore

/// The body of `POST /v1/telemetry`: a batch of an app session's samples of battery, heat, Low Power and what the
/// app was doing, with the session's identity.
///
/// `{"sessionID": "<uuid>", "startsSession": true, "previousSessionCrashed": false, "appVersion": "1.4.0",
/// "deviceModel": "iPhone15,2", "samples": [{"at": "...", "batteryLevel": 0.82, "batteryState": "unplugged",
/// "thermalState": "nominal", "lowPower": false, "active": true, "degraded": false}]}`. The server reads the
/// samples as intervals (see `DeviceSample`); the session's first batch counts the session, and says whether
/// the one before it ended in a crash.
public struct TelemetryBatch: Codable, Sendable, Hashable, Validatable {
    /// The app session, a UUID made at launch.
    public var sessionID: String
    /// True for the session's first batch.
    public var startsSession: Bool
    /// Whether the previous session ended in a crash; required on the session's first batch.
    public var previousSessionCrashed: Bool?
    /// The app's version, such as `1.4.0`.
    public var appVersion: String
    /// The hardware model, such as `iPhone15,2`.
    public var deviceModel: String
    /// The samples, oldest first.
    public var samples: [DeviceSample]

    /// Creates a batch.
    public init(
        sessionID: String, startsSession: Bool, previousSessionCrashed: Bool?, appVersion: String, deviceModel: String,
        samples: [DeviceSample]
    ) {
        self.sessionID = sessionID
        self.startsSession = startsSession
        self.previousSessionCrashed = previousSessionCrashed
        self.appVersion = appVersion
        self.deviceModel = deviceModel
        self.samples = samples
    }

    /// The session id a UUID, the names short, 1 to 120 samples in time order within a day, levels within 0-1.
    public func validate() throws(APIError) {
        try FieldCheck.uuid(sessionID, at: "sessionID")
        try FieldCheck.text(appVersion, maxLength: ProtocolLimits.maxClientPartBytes, at: "appVersion")
        try FieldCheck.text(deviceModel, maxLength: ProtocolLimits.maxClientPartBytes, at: "deviceModel")
        if startsSession, previousSessionCrashed == nil { throw APIError.missingField("previousSessionCrashed") }
        guard !samples.isEmpty else { throw APIError.invalidField("samples", "samples must not be empty") }
        guard samples.count <= ProtocolLimits.maxTelemetrySamples else {
            throw APIError.invalidField(
                "samples", "samples must hold at most \(ProtocolLimits.maxTelemetrySamples) samples per batch")
        }
        for (index, sample) in samples.enumerated() {
            let at = sample.at.timeIntervalSince1970
            guard at.isFinite else {
                throw APIError.invalidField(FieldPath.index("samples", index) + ".at", "at must be a finite date")
            }
            if index > 0, sample.at < samples[index - 1].at {
                throw APIError.invalidField(
                    FieldPath.index("samples", index) + ".at", "at must not be before the sample before it")
            }
            if let level = sample.batteryLevel {
                try FieldCheck.number(level, in: 0...1, at: FieldPath.index("samples", index) + ".batteryLevel")
            }
        }
        if let first = samples.first, let last = samples.last,
            last.at.timeIntervalSince(first.at) > ProtocolLimits.maxTelemetrySpanSeconds
        {
            throw APIError.invalidField("samples", "samples must span at most 24 hours")
        }
    }
}
