/// The bounds the wire enforces, in one place so clients can respect them before sending.
public enum ProtocolLimits {
    /// The most points one location batch may carry (JSON or binary). A 10-hour shift at one fix
    /// every 4 s is 9,000 points, so an offline buffer is flushed in several batches.
    public static let maxPointsPerBatch = 1_000
    /// The longest id, product id or reason accepted, in UTF-8 bytes.
    public static let maxIdentifierBytes = 64
    /// The longest free-text cancel reason, in UTF-8 bytes.
    public static let maxReasonBytes = 500
    /// The largest accuracy radius accepted, in metres; worse than this is not a position.
    public static let maxAccuracyMeters = 100_000.0
    /// The largest speed accepted, in metres per second (well beyond any car, short of nonsense).
    public static let maxSpeedMetersPerSecond = 1_000.0
    /// The longest round trip a location batch may report, in seconds: a link slower than this carries no live position.
    public static let maxRoundTripSeconds = 600.0
    /// The most samples one telemetry batch may carry: two hours at the apps' one a minute.
    public static let maxTelemetrySamples = 120
    /// The longest app version or device model accepted in telemetry, in UTF-8 bytes.
    public static let maxClientPartBytes = 32
    /// The most points a reported route may hold (`PUT /v1/trips/{id}/route`): an app thins a longer one.
    public static let maxRoutePoints = 1_000
    /// The longest encoded route accepted, in UTF-8 bytes: 1,000 points of a city's streets encode in well under it.
    public static let maxRoutePathBytes = 16_000
}
