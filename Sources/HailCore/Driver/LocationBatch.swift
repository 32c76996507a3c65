import Foundation

/// The driver's positions as sent in one message: `{"seq": 42, "points": [...]}`.
///
/// `seq` grows by one per batch the driver sends; the server acknowledges it and ignores any batch
/// whose seq is not newer than the newest it applied. `backlog` marks points flushed from the offline
/// buffer: they go to the trip's history (distance, fare) and never move the rider's car. `noFix` marks
/// a keep-alive from a phone that has no fix (a tunnel, a garage): its one point repeats the last fix to
/// say where the driver was, and the server keeps the driver online and in the geo index but shows it to
/// no rider as a position, since nobody knows how old it is. `sentAt` is when the phone sent the batch, on
/// its own clock: with it the server tells how long the fixes waited on the phone from how long they took
/// to arrive (`FixTimeEstimator`). `roundTrip` is the quickest round trip the phone measured of its recent batches
/// (sent to acknowledged, both on its clock): it bounds how long a batch took to arrive, so the server never dates a
/// fix later than it was taken.
public struct LocationBatch: Codable, Sendable, Hashable {
    /// The batch's sequence number for this driver.
    public var seq: Int64
    /// The fixes, oldest first.
    public var points: [LocationPoint]
    /// True when these points were buffered while offline and are history, not the live position.
    public var backlog: Bool
    /// True when the phone has no fix: a keep-alive whose one point is the last fix, not where the car is.
    public var noFix: Bool
    /// When the phone sent the batch, on its clock (the same clock as the points' `t`); nil when it does not say.
    public var sentAt: Date?
    /// The quickest round trip of the phone's recent batches, from sending one to its acknowledgement, in seconds on
    /// the phone's clock; nil when it does not say (no batch acknowledged yet, or an app before it).
    public var roundTrip: TimeInterval?

    /// Creates a batch.
    public init(
        seq: Int64, points: [LocationPoint], backlog: Bool = false, noFix: Bool = false, sentAt: Date? = nil,
        roundTrip: TimeInterval? = nil
    ) {
        self.seq = seq
        self.points = points
        self.backlog = backlog
        self.noFix = noFix
        self.sentAt = sentAt
        self.roundTrip = roundTrip
    }

    private enum CodingKeys: String, CodingKey {
        case seq, points, backlog, noFix, sentAt, roundTrip
    }

    /// Reads a batch; `backlog` and `noFix` may be absent, meaning false, and `sentAt` and `roundTrip` too.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(Int64.self, forKey: .seq)
        points = try container.decode([LocationPoint].self, forKey: .points)
        backlog = try container.decodeIfPresent(Bool.self, forKey: .backlog) ?? false
        noFix = try container.decodeIfPresent(Bool.self, forKey: .noFix) ?? false
        sentAt = try container.decodeIfPresent(Date.self, forKey: .sentAt)
        roundTrip = try container.decodeIfPresent(Double.self, forKey: .roundTrip)
    }

    /// Writes a batch, leaving `backlog` and `noFix` out when false so live batches stay small.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seq, forKey: .seq)
        try container.encode(points, forKey: .points)
        if backlog { try container.encode(true, forKey: .backlog) }
        if noFix { try container.encode(true, forKey: .noFix) }
        try container.encodeIfPresent(sentAt, forKey: .sentAt)
        try container.encodeIfPresent(roundTrip, forKey: .roundTrip)
    }
}
