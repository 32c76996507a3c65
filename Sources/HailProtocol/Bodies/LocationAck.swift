/// The server's receipt for a location batch: `{"seq": 42}`, the newest seq it has applied.
///
/// The answer to `POST /v1/drivers/me/locations` and the body of the driver stream's `ack` frame.
public struct LocationAck: Codable, Sendable, Hashable {
    /// The newest batch seq the server has applied for this driver.
    public var seq: Int64

    /// Creates a receipt.
    public init(seq: Int64) { self.seq = seq }
}
