/// The HTTP header names and media types the API uses.
public enum HailHeader {
    /// `Authorization: Bearer <token>` on every request.
    public static let authorization = "Authorization"
    /// `Idempotency-Key: <uuid>` on requests that create or change a trip.
    public static let idempotencyKey = "Idempotency-Key"
    /// `X-Hail-Client: hail-rider/1.4.0 (iPhone15,2)`: which app, version and device is asking.
    public static let client = "X-Hail-Client"
    /// `Retry-After: <seconds>` on 429 and 503.
    public static let retryAfter = "Retry-After"
    /// `X-Request-Id`: echoed by the server, and generated when absent, to tie logs together.
    public static let requestID = "X-Request-Id"
    /// The server's clock when it answered, RFC 3339 with milliseconds, so clients measure their offset on
    /// every REST round trip as well as on a stream's `hello`.
    public static let serverTime = "X-Hail-Server-Time"
    /// `Content-Type`.
    public static let contentType = "Content-Type"
    /// `Allow`, on 405 answers.
    public static let allow = "Allow"
    /// `Upgrade`, on 426 answers: the protocol the route speaks (`websocket`).
    public static let upgrade = "Upgrade"
    /// The query parameter that carries the token on WebSockets (browsers cannot set headers there).
    public static let accessTokenQueryParameter = "access_token"
}

/// The media types of request and response bodies.
public enum HailMediaType {
    /// JSON bodies, the default everywhere.
    public static let json = "application/json"
    /// The compact binary location batch (see `LocationBatchCodec`), accepted by `POST /v1/drivers/me/locations`.
    public static let locationBatch = "application/vnd.hail.location-batch"
    /// The Prometheus text exposition format served by `/metrics`.
    public static let prometheus = "text/plain; version=0.0.4"
}
