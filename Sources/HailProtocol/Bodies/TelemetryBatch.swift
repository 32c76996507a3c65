import HailCore

/// The body of `POST /v1/telemetry`: a batch of an app session's samples of battery, heat, Low Power and what the
/// app was doing, with the session's identity.
///
/// `{"sessionID": "<uuid>", "startsSession": true, "previousSessionCrashed": false, "appVersion": "1.4.0",
/// "deviceModel": "iPhone15,2", "samples": [{"at": "...", "batteryLevel": 0.82, "batteryState": "unplugged",
/// "thermalState": "nominal", "lowPower": false, "active": true, "degraded": false}]}`. The server reads the
/// samples as intervals in time order (see `DeviceSample`); the session's first batch counts the session, and
/// `previousSessionCrashed` (on every batch, read on that one) says whether the one before it ended in a crash.
public struct TelemetryBatch: Codable, Sendable, Hashable, Validatable {
    /// The app session, a UUID made at launch.
    public var sessionID: String
    /// True for the session's first batch.
    public var startsSession: Bool
    /// Whether the previous session ended in a crash.
    public var previousSessionCrashed: Bool
    /// The app's version, such as `1.4.0`.
    public var appVersion: String
    /// The hardware model, such as `iPhone15,2`.
    public var deviceModel: String
    /// The samples, oldest first.
    public var samples: [DeviceSample]

    /// Creates a batch.
    public init(
        sessionID: String, startsSession: Bool, previousSessionCrashed: Bool, appVersion: String, deviceModel: String,
        samples: [DeviceSample]
    ) {
        self.sessionID = sessionID
        self.startsSession = startsSession
        self.previousSessionCrashed = previousSessionCrashed
        self.appVersion = appVersion
        self.deviceModel = deviceModel
        self.samples = samples
    }

    /// The session id a UUID; the version and device 1 to 32 printable ASCII characters (they become metric
    /// labels, bounded); 1 to 120 samples with levels within 0-1.
    public func validate() throws(APIError) {
        try FieldCheck.uuid(sessionID, at: "sessionID")
        try Self.checkName(appVersion, at: "appVersion")
        try Self.checkName(deviceModel, at: "deviceModel")
        guard !samples.isEmpty else { throw APIError.invalidField("samples", "samples must not be empty") }
        guard samples.count <= ProtocolLimits.maxTelemetrySamples else {
            throw APIError.invalidField(
                "samples", "samples must hold at most \(ProtocolLimits.maxTelemetrySamples) samples per batch")
        }
        for (index, sample) in samples.enumerated() {
            if let level = sample.batteryLevel {
                try FieldCheck.number(level, in: 0...1, at: FieldPath.index("samples", index) + ".batteryLevel")
            }
        }
    }

    /// The samples in time order, however they came.
    public var samplesInOrder: [DeviceSample] { samples.sorted { $0.at < $1.at } }

    private static func checkName(_ text: String, at field: String) throws(APIError) {
        let printable = text.utf8.allSatisfy { (0x20...0x7E).contains($0) }
        guard printable, (1...ProtocolLimits.maxClientPartBytes).contains(text.utf8.count) else {
            throw APIError.invalidField(
                field, "\(field) must be 1 to \(ProtocolLimits.maxClientPartBytes) printable ASCII characters")
        }
    }
}
