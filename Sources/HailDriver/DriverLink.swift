/// Which link the driver's positions travel over right now.
public enum DriverLink: String, Codable, Sendable, Hashable {
    /// The driver stream.
    case stream
    /// `POST /v1/drivers/me/locations`, while the stream is down.
    case http
    /// Neither: positions are buffered.
    case down
}
