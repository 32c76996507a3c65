/// The server's receipt for a location batch: `{"seq": 42}`, the seq of the batch it answers.
///
/// The answer to `POST /v1/drivers/me/locations` and the body of the driver stream's `ack` frame.
public struct LocationAck: Codable, Sendable, Hashable {
    /// The seq of the batch received; an older or duplicate batch is acknowledged with its own seq and ignored.
    public var seq: Int64

    /// Creates a receipt.
    public init(seq: Int64) { self.seq = seq }
}
