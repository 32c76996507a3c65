/// The driver's positions as sent in one message: `{"seq": 42, "points": [...]}`.
///
/// `seq` grows by one per batch the driver sends; the server acknowledges it and ignores any batch
/// whose seq is not newer than the newest it applied. `backlog` marks points flushed from the offline
/// buffer: they go to the trip's history (distance, fare) and never move the rider's car.
public struct LocationBatch: Codable, Sendable, Hashable {
    /// The batch's sequence number for this driver.
    public var seq: Int64
    /// The fixes, oldest first.
    public var points: [LocationPoint]
    /// True when these points were buffered while offline and are history, not the live position.
    public var backlog: Bool

    /// Creates a batch.
    public init(seq: Int64, points: [LocationPoint], backlog: Bool = false) {
        self.seq = seq
        self.points = points
        self.backlog = backlog
    }

    private enum CodingKeys: String, CodingKey {
        case seq, points, backlog
    }

    /// Reads a batch; `backlog` may be absent, meaning false.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(Int64.self, forKey: .seq)
        points = try container.decode([LocationPoint].self, forKey: .points)
        backlog = try container.decodeIfPresent(Bool.self, forKey: .backlog) ?? false
    }

    /// Writes a batch, leaving `backlog` out when false so live batches stay small.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seq, forKey: .seq)
        try container.encode(points, forKey: .points)
        if backlog { try container.encode(true, forKey: .backlog) }
    }
}
