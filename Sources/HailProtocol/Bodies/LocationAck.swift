/// The server's receipt for a location batch: `{"seq": 42}`, the seq of the batch it answers.
///
/// The answer to `POST /v1/drivers/me/locations` and the body of the driver stream's `ack` frame.
public struct LocationAck: Codable, Sendable, Hashable {
    /// The seq of the batch received; an older or duplicate batch is acknowledged with its own seq and ignored.
    public var seq: Int64
    /// The trip offered to the driver, while the offer is open, in an answer over HTTP: a driver whose stream is
    /// down sends its positions there and hears of its offer with their answer. Never in the stream's `ack` frame,
    /// whose stream carries the offer itself.
    public var offer: TripOffer?

    /// Creates a receipt.
    public init(seq: Int64, offer: TripOffer? = nil) {
        self.seq = seq
        self.offer = offer
    }
}
